// Gives each test its own device root: a fresh temporary directory in $NNEMU_ROOT, removed (and
// the previous NNEMU_ROOT restored) when the test ends.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "nnemu/base/Status.h"

namespace nnemu::props::testing {

// Whether `status` is OK, keeping its message (empty when OK) for the test's checks.
inline bool succeeded(const Status& status, std::string& message) {
    message = status.message();
    return status.isOk();
}

class TemporaryDeviceRoot {
public:
    TemporaryDeviceRoot();
    ~TemporaryDeviceRoot();
    TemporaryDeviceRoot(const TemporaryDeviceRoot&) = delete;
    TemporaryDeviceRoot& operator=(const TemporaryDeviceRoot&) = delete;

    const std::string& root() const { return root_; }
    // A scratch directory next to the root, for files that must not appear inside it.
    const std::string& scratch() const { return scratch_; }
    // The host path of an Android path inside this root.
    std::string hostPath(std::string_view androidPath) const { return root_ + std::string(androidPath); }
    // Writes a file (creating its directories) at an Android path, replacing it in place.
    void writeFile(std::string_view androidPath, std::string_view text) const;
    std::string readFile(std::string_view androidPath) const;

private:
    std::string base_;
    std::string root_;
    std::string scratch_;
    std::optional<std::string> previousRoot_;
};

// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnvironment {
public:
    ScopedEnvironment(std::string name, const char* value);
    ~ScopedEnvironment();
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    std::string name_;
    std::optional<std::string> previous_;
};

// The fixture most tests use.
class PropsTest : public ::testing::Test {
protected:
    TemporaryDeviceRoot device_;
};

}  // namespace nnemu::props::testing
