// Message digests from Debian's libmd (a few kilobytes, no relocated tables, unlike libcrypto):
// md5 (RFC 1321) names and checks what the SyNAP cache stores and keys it, as the board's driver
// does; SHA-256 (FIPS 180-4) derives the NNAPI cache tokens and the diagnostics' graph hash.
// Neither guards against an adversary here, only names and compares contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace nnemu::base {

enum class DigestAlgorithm { MD5, SHA256 };

class Digest {
public:
    explicit Digest(DigestAlgorithm algorithm);

    void update(const void* data, size_t size);
    template <typename T>
        requires std::is_trivially_copyable_v<T>
    void updateValue(const T& value) {
        update(&value, sizeof value);
    }
    // The digest of everything given so far (16 or 32 bytes); the digest is spent after it and
    // further calls return an empty vector.
    std::vector<uint8_t> finish();

    ~Digest();
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;

private:
    struct State;  // libmd's context, kept out of this header
    DigestAlgorithm algorithm_;
    State* state_;
    bool finished_ = false;
};

std::vector<uint8_t> md5(const void* data, size_t size);
// Lower-case hexadecimal, two digits per byte.
std::string toHex(const std::vector<uint8_t>& bytes);

}  // namespace nnemu::base
