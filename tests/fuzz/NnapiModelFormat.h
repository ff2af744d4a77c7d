// The byte format nnapi_model_fuzz reads: a flags byte, then a stream of NNAPI model-building
// calls, then bytes that fill the execution's inputs. Small values take one byte; 0xFF (0xFFFF
// for lengths) escapes to a raw little-endian 32-bit value, so the seeds can spell any model
// exactly and mutations stay mostly meaningful. Reading past the end gives zeros.
// FuzzModelWriter (used by the corpus generator) writes what FuzzModelReader reads.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace nnemu::fuzz {

// Flags byte.
constexpr uint8_t kFlagExecute = 1;    // compile and run the model on nnapi-reference
constexpr uint8_t kFlagEvent = 2;      // run by startCompute and wait rather than compute
constexpr uint8_t kFlagPreferenceShift = 2;  // two bits: ANEURALNETWORKS_PREFER_*

// Calls, one byte each (taken modulo kCallCount), followed by their arguments:
enum Call : uint8_t {
    kAddOperand = 0,         // type, rank (mod 8), dims..., scale, zero point
    kSetValue = 1,           // operand, length (0xFFFE: a null buffer), then that many bytes
    kSetValueFromMemory = 2, // operand, protect, file size, memory size, memory offset, offset, length
    kAddOperation = 3,       // type, input count (mod 16), inputs..., output count (mod 8), outputs...
    kIdentify = 4,           // input count (mod 16), inputs..., output count (mod 16), outputs...
    kPerChannel = 5,         // operand, channel dim, scale count, scales...
    kRelax = 6,              // bool
    kFinish = 7,             // finish; the rest of the bytes are input data
    kCallCount = 8,
};

constexpr uint32_t kOperandTypeCount = 14;  // FL29 codes 0..13; 0xFF escapes to any int32
constexpr uint16_t kNullValue = 0xFFFE;     // kSetValue length meaning (nullptr, 0): omitted

class FuzzModelReader {
public:
    FuzzModelReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    bool done() const { return position_ >= size_; }
    const uint8_t* rest() const { return data_ + position_; }
    size_t restSize() const { return size_ - position_; }

    uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
    uint32_t raw32() {
        uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value |= uint32_t{byte()} << (8 * i);
        return value;
    }
    // One byte, or 0xFF and a raw 32-bit value.
    uint32_t small() {
        const uint8_t value = byte();
        return value == 0xFF ? raw32() : value;
    }
    // Two bytes, or 0xFFFF and a raw 32-bit value.
    uint32_t length() {
        const uint32_t value = uint32_t{byte()} | uint32_t{byte()} << 8;
        return value == 0xFFFF ? raw32() : value;
    }
    // 0, k/256 for k in 1..254, or 0xFF and a raw float.
    float scale() {
        const uint8_t value = byte();
        if (value != 0xFF) return static_cast<float>(value) / 256.0f;
        const uint32_t bits = raw32();
        float result;
        std::memcpy(&result, &bits, sizeof result);
        return result;
    }
    // Up to `count` bytes (fewer at the end of the input).
    std::vector<uint8_t> bytes(size_t count) {
        const size_t taken = count < restSize() ? count : restSize();
        std::vector<uint8_t> result(data_ + position_, data_ + position_ + taken);
        position_ += taken;
        return result;
    }

private:
    const uint8_t* data_;
    size_t size_;
    size_t position_ = 0;
};

class FuzzModelWriter {
public:
    std::vector<uint8_t> bytes;

    void byte(uint8_t value) { bytes.push_back(value); }
    void raw32(uint32_t value) {
        for (int i = 0; i < 4; ++i) byte(static_cast<uint8_t>(value >> (8 * i)));
    }
    void small(uint32_t value) {
        if (value < 0xFF) return byte(static_cast<uint8_t>(value));
        byte(0xFF);
        raw32(value);
    }
    void length(uint32_t value) {
        if (value < 0xFFFF) {
            byte(static_cast<uint8_t>(value));
            byte(static_cast<uint8_t>(value >> 8));
            return;
        }
        byte(0xFF);
        byte(0xFF);
        raw32(value);
    }
    void scale(float value) {
        const float steps = value * 256.0f;
        if (steps >= 0.0f && steps < 255.0f && static_cast<float>(static_cast<int>(steps)) == steps &&
            static_cast<float>(static_cast<int>(steps)) / 256.0f == value) {
            return byte(static_cast<uint8_t>(steps));
        }
        byte(0xFF);
        uint32_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        raw32(bits);
    }
    void append(const void* data, size_t size) {
        const auto* begin = static_cast<const uint8_t*>(data);
        bytes.insert(bytes.end(), begin, begin + size);
    }
};

}  // namespace nnemu::fuzz
