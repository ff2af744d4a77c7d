// Complex numbers (issue 24): RFFT2D (float32 in, complex64 out) and COMPLEX_ABS, REAL, IMAG
// (complex64 -> float32, complex128 -> float64), as TFLite's rfft2d.cc and complex_support.cc.
//
// The transform: TFLite runs Ooura's fft2d in double precision and rounds each result to float.
// Debian packages no build of that library; FFTW (libfftw3) would give the same numbers but adds
// a runtime dependency, and a planner that is not thread-safe, to every tool for what is a
// power-of-two transform (TFLite refuses other lengths). So the transform is written here: an
// iterative radix-2 FFT in double, rows (two real rows per complex transform) then columns,
// twiddles from cos/sin. Any accurate double transform rounds to the same float but for a
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

// In-place forward transform of n (a power of two) values `stride` apart.
void fft(Complex* data, size_t n, size_t stride, const std::vector<Complex>& w) {
    for (size_t i = 1, j = 0; i < n; ++i) {   // bit-reversal permutation
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) std::swap(data[i * stride], data[j * stride]);
    }
    for (size_t length = 2; length <= n; length <<= 1) {
        const size_t half = length / 2, step = n / length;
        for (size_t start = 0; start < n; start += length) {
            for (size_t k = 0; k < half; ++k) {
                Complex& a = data[(start + k) * stride];
                Complex& b = data[(start + k + half) * stride];
                const Complex& t = w[k * step];
                // Written out: std::complex's operator* adds NaN recovery TFLite's doubles lack.
                const double re = b.real() * t.real() - b.imag() * t.imag();
                const double im = b.real() * t.imag() + b.imag() * t.real();
                b = {a.real() - re, a.imag() - im};
                a = {a.real() + re, a.imag() + im};
            }
        }
    }
}

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
    std::vector<Complex> row(width), column(height), grid(rows * columns);
    for (size_t r = 0; r < rows; r += 2) {
        const float *first = rowData(r), *second = rowData(r + 1);
        if (first == nullptr && second == nullptr) continue;   // padding: zeros transform to zeros
        std::fill(row.begin(), row.end(), Complex{});
        for (size_t x = 0; x < used; ++x) {
            row[x] = {first != nullptr ? first[x] : 0.0, second != nullptr ? second[x] : 0.0};
        }
        fft(row.data(), width, 1, rowTwiddles);
        for (size_t k = 0; k < columns; ++k) {
            const Complex z = row[k], mirror = std::conj(row[(width - k) & (width - 1)]);
            grid[r * columns + k] = {(z.real() + mirror.real()) * 0.5, (z.imag() + mirror.imag()) * 0.5};
            if (r + 1 < rows) {
                grid[(r + 1) * columns + k] = {(z.imag() - mirror.imag()) * 0.5, (mirror.real() - z.real()) * 0.5};
            }
        }
    }
    std::vector<std::complex<float>> result(rows * columns);
    for (size_t s = 0; s < slices; ++s) {
        const Complex* slice = grid.data() + s * height * columns;
        std::complex<float>* out = result.data() + s * height * columns;
        for (size_t x = 0; x < columns; ++x) {
            for (size_t y = 0; y < height; ++y) column[y] = slice[y * columns + x];
            fft(column.data(), height, 1, columnTwiddles);
            for (size_t y = 0; y < height; ++y) {
                out[y * columns + x] = {static_cast<float>(column[y].real()), static_cast<float>(column[y].imag())};
            }
        }
    }
    if (!result.empty()) std::memcpy(call.out(0).out, result.data(), result.size() * sizeof(result[0]));
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
