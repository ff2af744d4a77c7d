#include "nnemu/base/Digest.h"

#include <md5.h>
#include <sha2.h>

namespace nnemu::base {

struct Digest::State {
    union {
        MD5_CTX md5;
        SHA2_CTX sha256;
    };
};

Digest::Digest(DigestAlgorithm algorithm) : algorithm_(algorithm), state_(new State) {
    if (algorithm_ == DigestAlgorithm::MD5) {
        MD5Init(&state_->md5);
    } else {
        SHA256Init(&state_->sha256);
    }
}

Digest::~Digest() { delete state_; }

void Digest::update(const void* data, size_t size) {
    if (finished_ || size == 0) return;
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (algorithm_ == DigestAlgorithm::MD5) {
        MD5Update(&state_->md5, bytes, size);
    } else {
        SHA256Update(&state_->sha256, bytes, size);
    }
}

std::vector<uint8_t> Digest::finish() {
    if (finished_) return {};
    finished_ = true;
    if (algorithm_ == DigestAlgorithm::MD5) {
        std::vector<uint8_t> digest(MD5_DIGEST_LENGTH);
        MD5Final(digest.data(), &state_->md5);
        return digest;
    }
    std::vector<uint8_t> digest(SHA256_DIGEST_LENGTH);
    SHA256Final(digest.data(), &state_->sha256);
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
