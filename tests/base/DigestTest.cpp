// The own md5 and SHA-256 against the published test vectors (RFC 1321's test suite, FIPS 180's
// examples), and the same digest whatever the updates' sizes.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "nnemu/base/Digest.h"

namespace nnemu::base {
namespace {

std::string hexOf(DigestAlgorithm algorithm, const std::string& text) {
    Digest digest(algorithm);
    digest.update(text.data(), text.size());
    return toHex(digest.finish());
}

TEST(DigestTest, Md5OfRfc1321sTestSuite) {
    const char* cases[][2] = {
            {"", "d41d8cd98f00b204e9800998ecf8427e"},
            {"a", "0cc175b9c0f1b6a831c399e269772661"},
            {"abc", "900150983cd24fb0d6963f7d28e17f72"},
            {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
            {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
            {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
            {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
             "57edf4a22be3c955ac49da2e2107b67a"}};
    for (const auto& [text, expected] : cases) EXPECT_EQ(hexOf(DigestAlgorithm::MD5, text), expected) << text;
    EXPECT_EQ(toHex(md5("abc", 3)), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(DigestTest, Sha256OfFips180sExamples) {
    EXPECT_EQ(hexOf(DigestAlgorithm::SHA256, ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(hexOf(DigestAlgorithm::SHA256, "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the length no longer fits the first block's padding.
    EXPECT_EQ(hexOf(DigestAlgorithm::SHA256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hexOf(DigestAlgorithm::SHA256, std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(DigestTest, UpdatesOfAnySizeGiveTheSameDigest) {
    std::mt19937 random(5);
    std::string text(700, '\0');
    for (char& c : text) c = static_cast<char>(random());
    for (DigestAlgorithm algorithm : {DigestAlgorithm::MD5, DigestAlgorithm::SHA256}) {
        for (size_t length : {size_t{0}, size_t{55}, size_t{56}, size_t{63}, size_t{64}, size_t{65}, size_t{119},
                              size_t{120}, size_t{700}}) {
            const std::string whole = hexOf(algorithm, text.substr(0, length));
            for (size_t piece : {size_t{1}, size_t{7}, size_t{63}, size_t{64}, size_t{100}}) {
                Digest digest(algorithm);
                for (size_t at = 0; at < length; at += piece) digest.update(text.data() + at, std::min(piece, length - at));
                EXPECT_EQ(toHex(digest.finish()), whole) << "length " << length << " in pieces of " << piece;
            }
        }
    }
}

TEST(DigestTest, AFinishedDigestIsSpent) {
    Digest digest(DigestAlgorithm::MD5);
    digest.update("abc", 3);
    EXPECT_EQ(digest.finish().size(), 16u);
    digest.update("d", 1);
    EXPECT_TRUE(digest.finish().empty());
}

}  // namespace
}  // namespace nnemu::base
