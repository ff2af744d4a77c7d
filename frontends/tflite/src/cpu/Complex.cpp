// Complex numbers (issue 24): RFFT2D (float32 in, complex64 out) and COMPLEX_ABS, REAL, IMAG
// (complex64 -> float32, complex128 -> float64), as TFLite's rfft2d.cc and complex_support.cc.
//
// The transform: TFLite runs Ooura's fft2d in double precision and rounds each result to float.
// Debian packages no build of that library; FFTW (libfftw3) would give the same numbers but adds
// a runtime dependency, and a planner that is not thread-safe, to every tool for what is a
// power-of-two transform (TFLite refuses other lengths). So the transform is written here: an
// iterative radix-2 FFT in double, rows (two real rows per complex transform) then columns,
// twiddles from cos/sin; the transforms of a pass run side by side with real and imaginary parts
// apart, so that each butterfly is a loop over contiguous values (measured: 1.7x TFLite's time on
// a 64x128 transform with one transform at a time, 0.9x this way; BENCHMARKS.md). Any accurate double transform rounds to the same float but for a
// last-place difference where a value falls near a rounding boundary, and for values whose exact
// result is zero, where each leaves its own residue (~1e-16 of the largest): the entries TFLite
// forces to zero (the imaginary parts of the DC and Nyquist terms) are exactly zero here too.
#include <cmath>
#include <complex>
#include <map>
#include <numbers>

#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

using Complex = std::complex<double>;

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// exp(-2 pi i k / n) for k < n / 2, computed once per length and thread.
const std::vector<Complex>& twiddles(size_t n) {
    thread_local std::map<size_t, std::vector<Complex>> cache;
    std::vector<Complex>& w = cache[n];
    if (w.size() == n / 2) return w;
    w.resize(n / 2);
    for (size_t k = 0; k < w.size(); ++k) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
        w[k] = {std::cos(angle), -std::sin(angle)};
    }
    return w;
}

// In-place forward transforms of n (a power of two) values each, `batch` of them side by side,
// real and imaginary parts apart: value i of transform b has its real part at
// data[2 * i * batch + b] and its imaginary part `batch` further. The butterflies' inner loops run
// over the batch (contiguous, one twiddle), so they vectorize and the column transforms of a
// 2-D transform need no gathering.
[[gnu::always_inline]] inline void fftBody(double* data, size_t n, size_t batch, const std::vector<Complex>& w) {
    const size_t span = 2 * batch;   // doubles per index
    for (size_t i = 1, j = 0; i < n; ++i) {   // bit-reversal permutation
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) std::swap_ranges(data + i * span, data + (i + 1) * span, data + j * span);
    }
    for (size_t length = 2; length <= n; length <<= 1) {
        const size_t half = length / 2, step = n / length;
        for (size_t start = 0; start < n; start += length) {
            for (size_t k = 0; k < half; ++k) {
                double* __restrict ar = data + (start + k) * span;
                double* __restrict ai = ar + batch;
                double* __restrict br = data + (start + k + half) * span;
                double* __restrict bi = br + batch;
                const double tr = w[k * step].real(), ti = w[k * step].imag();
                for (size_t x = 0; x < batch; ++x) {
                    // Written out: std::complex's operator* adds NaN recovery TFLite's doubles lack.
                    const double re = br[x] * tr - bi[x] * ti;
                    const double im = br[x] * ti + bi[x] * tr;
                    br[x] = ar[x] - re;
                    bi[x] = ai[x] - im;
                    ar[x] += re;
                    ai[x] += im;
                }
            }
        }
    }
}

// The same code built for AVX2 where the CPU has it (four values per instruction; no FMA, so
// every product and sum rounds as in the baseline build).
[[gnu::target("avx2")]] void fftAvx2(double* data, size_t n, size_t batch, const std::vector<Complex>& w) {
    fftBody(data, n, batch, w);
}
void fftBaseline(double* data, size_t n, size_t batch, const std::vector<Complex>& w) { fftBody(data, n, batch, w); }

void fft(double* data, size_t n, size_t batch, const std::vector<Complex>& w) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    return avx2 ? fftAvx2(data, n, batch, w) : fftBaseline(data, n, batch, w);
}

struct Rfft2dBuffers {
    std::vector<double> rowPairs, grid;   // fft()'s layout
};

struct Fft2d {
    int32_t height = 0, width = 0;
};

bool fftLength(const CpuKernelCall& call, Fft2d* lengths, bool* known) {
    const CpuOperand& length = call.in(1);
    if (!call.expectType(length, {ElementType::INT32}, "fft_length")) return false;
    if (length.shape() != std::vector<int32_t>{2}) {
        return call.fail("fft_length must have shape [2], not " + shapeText(length.shape()));
    }
    *known = length.known();
    if (!*known) return true;
    lengths->height = length.at<int32_t>(0);
    lengths->width = length.at<int32_t>(1);
    if (!isPowerOfTwo(lengths->height) || !isPowerOfTwo(lengths->width)) {
        return call.fail("fft_length " + std::to_string(lengths->height) + "x" + std::to_string(lengths->width) +
                         " must be powers of two");
    }
    return true;
}

std::vector<int32_t> rfftShape(const CpuOperand& input, const Fft2d& lengths) {
    std::vector<int32_t> shape = input.shape();
    shape[shape.size() - 2] = lengths.height;
    shape[shape.size() - 1] = lengths.width / 2 + 1;
    return shape;
}

bool prepareRfft2d(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32}, "input")) return false;
    if (!call.expectType(call.out(0), {ElementType::COMPLEX64}, "output")) return false;
    if (call.in(0).rank() < 2) return call.fail("input must have rank 2 or more");
    Fft2d lengths;
    bool known = false;
    if (!fftLength(call, &lengths, &known)) return false;
    return !known || call.expectOutputShape(0, rfftShape(call.in(0), lengths));
}

bool runRfft2d(const CpuKernelCall& call) {
    Fft2d lengths;
    bool known = false;
    if (!fftLength(call, &lengths, &known)) return false;
    const CpuOperand& input = call.in(0);
    if (!call.resizeOutput(0, rfftShape(input, lengths))) return false;
    const auto height = static_cast<size_t>(lengths.height), width = static_cast<size_t>(lengths.width);
    const size_t inHeight = static_cast<size_t>(input.shape()[input.rank() - 2]);
    const size_t inWidth = static_cast<size_t>(input.shape()[input.rank() - 1]);
    const size_t columns = width / 2 + 1;
    size_t slices = 1;   // the leading dimensions (an empty input still gives zeros, as in TFLite)
    for (size_t d = 0; d + 2 < input.rank(); ++d) slices *= static_cast<size_t>(input.shape()[d]);
    const std::vector<Complex>& rowTwiddles = twiddles(width);
    const std::vector<Complex>& columnTwiddles = twiddles(height);
    // Every row of every slice, zero-padded (or cropped), transformed two real rows at a time
    // (row r real, row r + 1 imaginary, across slices too), told apart by the symmetry of real
    // transforms, keeping the non-negative frequencies; their DC and Nyquist terms stay exactly real.
    const size_t rows = slices * height;
    std::vector<float> values(input.count());
    if (!values.empty()) std::memcpy(values.data(), input.data, values.size() * sizeof(float));
    const auto hasData = [&](size_t r) { return r < rows && r % height < inHeight; };
    // Row r's input values (the first min(inWidth, width) of them count), nullptr for padding.
    const auto rowData = [&](size_t r) {
        return hasData(r) ? values.data() + ((r / height) * inHeight + r % height) * inWidth : nullptr;
    };
    const size_t used = std::min(inWidth, width);
    // The pairs of rows side by side (row 2p the real parts, row 2p + 1 the imaginary ones of
    // transform p, in fft()'s layout), transformed at once.
    const size_t pairs = (rows + 1) / 2;
    // Working memory kept with the node across invokes (as TFLite's temporaries): fresh buffers
    // would be faulted in at every invoke.
    if (call.state != nullptr && *call.state == nullptr) *call.state = std::make_shared<Rfft2dBuffers>();
    Rfft2dBuffers local;
    Rfft2dBuffers& buffers = call.state != nullptr ? *static_cast<Rfft2dBuffers*>(call.state->get()) : local;
    std::vector<double>& rowPairs = buffers.rowPairs;
    std::vector<double>& grid = buffers.grid;
    rowPairs.assign(2 * width * pairs, 0.0);
    grid.assign(2 * rows * columns, 0.0);
    for (size_t p = 0; p < pairs; ++p) {
        const float *first = rowData(2 * p), *second = rowData(2 * p + 1);
        for (size_t x = 0; x < used && first != nullptr; ++x) rowPairs[2 * x * pairs + p] = first[x];
        for (size_t x = 0; x < used && second != nullptr; ++x) rowPairs[(2 * x + 1) * pairs + p] = second[x];
    }
    fft(rowPairs.data(), width, pairs, rowTwiddles);
    // Row r of the grid: its columns' real parts, then their imaginary parts (fft()'s layout for
    // each slice's column transforms).
    for (size_t k = 0; k < columns; ++k) {
        const double* z = rowPairs.data() + 2 * k * pairs;
        const double* mirror = rowPairs.data() + 2 * ((width - k) & (width - 1)) * pairs;
        for (size_t p = 0; p < pairs; ++p) {
            const double zr = z[p], zi = z[pairs + p], mr = mirror[p], mi = -mirror[pairs + p];
            double* row = grid.data() + 2 * (2 * p) * columns;
            row[k] = (zr + mr) * 0.5;
            row[columns + k] = (zi + mi) * 0.5;
            if (2 * p + 1 < rows) {
                row[2 * columns + k] = (zi - mi) * 0.5;
                row[3 * columns + k] = (mr - zr) * 0.5;
            }
        }
    }
    // Each slice's columns, transformed side by side in place (skipped for a height of 1), then
    // rounded to float into the output.
    for (size_t s = 0; s < slices && height > 1; ++s) {
        fft(grid.data() + 2 * s * height * columns, height, columns, columnTwiddles);
    }
    uint8_t* out = call.out(0).out;
    for (size_t r = 0; r < rows; ++r) {
        const double* row = grid.data() + 2 * r * columns;
        for (size_t k = 0; k < columns; ++k) {
            const std::complex<float> value{static_cast<float>(row[k]), static_cast<float>(row[columns + k])};
            std::memcpy(out + (r * columns + k) * sizeof value, &value, sizeof value);
        }
    }
    return true;
}

// COMPLEX_ABS, REAL, IMAG: one real value per complex element, of the element's precision.
bool prepareComplexPart(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::COMPLEX64, ElementType::COMPLEX128}, "input")) return false;
    const ElementType want = call.in(0).type() == ElementType::COMPLEX64 ? ElementType::FLOAT32 : ElementType::FLOAT64;
    if (call.out(0).type() != want) {
        return call.fail(std::string("output of type ") + elementTypeName(call.out(0).type()) + " for a " +
                         elementTypeName(call.in(0).type()) + " input, expected " + elementTypeName(want));
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

template <typename T, typename Part>
void extract(const CpuKernelCall& call) {
    const size_t count = call.in(0).count();
    for (size_t i = 0; i < count; ++i) call.out(0).set<T>(i, Part{}(call.in(0).at<std::complex<T>>(i)));
}

template <typename Part>
bool runComplexPart(const CpuKernelCall& call) {
    if (!call.expectOutputShape(0, call.in(0).shape())) return false;
    if (call.in(0).type() == ElementType::COMPLEX64) {
        extract<float, Part>(call);
    } else {
        extract<double, Part>(call);
    }
    return true;
}

struct Magnitude {
    template <typename T>
    T operator()(const std::complex<T>& z) const { return std::abs(z); }   // libm's hypot, as TFLite's
};
struct RealPart {
    template <typename T>
    T operator()(const std::complex<T>& z) const { return z.real(); }
};
struct ImaginaryPart {
    template <typename T>
    T operator()(const std::complex<T>& z) const { return z.imag(); }
};

template <typename Part>
CpuKernel complexPart() {
    return {prepareComplexPart, runComplexPart<Part>};
}

}  // namespace

void addComplexKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_RFFT2D, {prepareRfft2d, runRfft2d});
    table.add(fb::BuiltinOperator_COMPLEX_ABS, complexPart<Magnitude>());
    table.add(fb::BuiltinOperator_REAL, complexPart<RealPart>());
    table.add(fb::BuiltinOperator_IMAG, complexPart<ImaginaryPart>());
}

}  // namespace nnemu::tflite
