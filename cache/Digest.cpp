#include "nnemu/cache/Digest.h"

#include <openssl/evp.h>

namespace nnemu::cache {

Digest::Digest(DigestAlgorithm algorithm) : context_(EVP_MD_CTX_new()) {
    const EVP_MD* type = algorithm == DigestAlgorithm::MD5 ? EVP_md5() : EVP_sha256();
    failed_ = context_ == nullptr || EVP_DigestInit_ex(context_, type, nullptr) != 1;
}

Digest::~Digest() { EVP_MD_CTX_free(context_); }

void Digest::update(const void* data, size_t size) {
    if (!failed_ && size > 0) failed_ = EVP_DigestUpdate(context_, data, size) != 1;
}

std::vector<uint8_t> Digest::finish() {
    std::vector<uint8_t> digest(EVP_MAX_MD_SIZE);
    unsigned int length = 0;
    if (failed_ || EVP_DigestFinal_ex(context_, digest.data(), &length) != 1) {
        failed_ = true;
        return {};
    }
    failed_ = true;  // the context is spent
    digest.resize(length);
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

}  // namespace nnemu::cache
