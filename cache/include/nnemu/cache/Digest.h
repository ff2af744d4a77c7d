// Message digests through OpenSSL's EVP interface: md5 names and checks what the SyNAP cache
// stores, SHA-256 checks the NNAPI model cache file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

struct evp_md_ctx_st;

namespace nnemu::cache {

enum class DigestAlgorithm { MD5, SHA256 };

class Digest {
public:
    explicit Digest(DigestAlgorithm algorithm);
    ~Digest();
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;

    void update(const void* data, size_t size);
    template <typename T>
        requires std::is_trivially_copyable_v<T>
    void updateValue(const T& value) {
        update(&value, sizeof value);
    }
    // The digest of everything given so far; empty when OpenSSL failed (e.g. md5 refused by a
    // FIPS-only configuration), which callers treat as "cannot cache".
    std::vector<uint8_t> finish();

private:
    evp_md_ctx_st* context_ = nullptr;
    bool failed_ = false;
};

std::vector<uint8_t> md5(const void* data, size_t size);
// Lower-case hexadecimal, two digits per byte.
std::string toHex(const std::vector<uint8_t>& bytes);

}  // namespace nnemu::cache
