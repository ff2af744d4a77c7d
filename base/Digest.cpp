#include "nnemu/base/Digest.h"

#include <algorithm>
#include <cstring>

#include "DigestRounds.h"

namespace nnemu::base {

Digest::Digest(DigestAlgorithm algorithm)
    : algorithm_(algorithm), state_(algorithm == DigestAlgorithm::MD5 ? md5Initial() : sha256Initial()) {}

void Digest::update(const void* data, size_t size) {
    if (finished_ || size == 0) return;
    const auto* bytes = static_cast<const uint8_t*>(data);
    length_ += size;
    const auto fold = algorithm_ == DigestAlgorithm::MD5 ? md5Block : sha256Block;
    if (buffered_ > 0) {
        const size_t take = std::min(size, block_.size() - buffered_);
        std::memcpy(block_.data() + buffered_, bytes, take);
        buffered_ += take;
        bytes += take;
        size -= take;
        if (buffered_ < block_.size()) return;
        fold(state_, block_.data());
        buffered_ = 0;
    }
    for (; size >= block_.size(); bytes += block_.size(), size -= block_.size()) fold(state_, bytes);
    std::memcpy(block_.data(), bytes, size);
    buffered_ = size;
}

// Both pad the same way (a 1 bit, zeros, the length in bits in the last 8 bytes); md5 writes
// the length and its words little-endian, SHA-256 big-endian.
std::vector<uint8_t> Digest::finish() {
    if (finished_) return {};
    const bool md5 = algorithm_ == DigestAlgorithm::MD5;
    const uint64_t bits = length_ * 8;
    uint8_t tail[72] = {0x80};
    const size_t padding = (buffered_ < 56 ? 56 : 120) - buffered_;
    for (int i = 0; i < 8; ++i) tail[padding + i] = static_cast<uint8_t>(bits >> (md5 ? 8 * i : 56 - 8 * i));
    update(tail, padding + 8);
    finished_ = true;
    std::vector<uint8_t> digest(md5 ? 16 : 32);
    for (size_t i = 0; i < digest.size(); ++i) {
        const uint32_t word = state_[i / 4];
        digest[i] = static_cast<uint8_t>(word >> (md5 ? 8 * (i % 4) : 24 - 8 * (i % 4)));
    }
    return digest;
}

std::vector<uint8_t> md5(const void* data, size_t size) {
    Digest digest(DigestAlgorithm::MD5);
    digest.update(data, size);
    return digest.finish();
}

std::string toHex(const std::vector<uint8_t>& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    text.reserve(bytes.size() * 2);
    for (uint8_t byte : bytes) {
        text += kDigits[byte >> 4];
        text += kDigits[byte & 0x0F];
    }
    return text;
}

}  // namespace nnemu::base
