#include "TemporaryDeviceRoot.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nnemu::props::testing {
namespace {

std::optional<std::string> environment(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

void restore(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
        setenv(name.c_str(), value->c_str(), 1);
    } else {
        unsetenv(name.c_str());
    }
}

}  // namespace

TemporaryDeviceRoot::TemporaryDeviceRoot() {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/nnemu-props-test.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    base_ = pattern;
    root_ = base_ + "/device";
    scratch_ = base_ + "/scratch";
    std::filesystem::create_directories(root_);
    std::filesystem::create_directories(scratch_);
    previousRoot_ = environment("NNEMU_ROOT");
    setenv("NNEMU_ROOT", root_.c_str(), 1);
}

TemporaryDeviceRoot::~TemporaryDeviceRoot() {
    restore("NNEMU_ROOT", previousRoot_);
    std::error_code ec;
    // A test may have made parts read-only; give write permission back before removing.
    ::chmod(base_.c_str(), 0755);
    ::chmod(root_.c_str(), 0755);
    for (auto it = std::filesystem::recursive_directory_iterator(base_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec)) ::chmod(it->path().c_str(), 0755);
    }
    std::filesystem::remove_all(base_, ec);
}

void TemporaryDeviceRoot::writeFile(std::string_view androidPath, std::string_view text) const {
    std::filesystem::path path = hostPath(androidPath);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string TemporaryDeviceRoot::readFile(std::string_view androidPath) const {
    std::ifstream in(hostPath(androidPath), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

ScopedEnvironment::ScopedEnvironment(std::string name, const char* value)
    : name_(std::move(name)), previous_(environment(name_)) {
    if (value != nullptr) {
        setenv(name_.c_str(), value, 1);
    } else {
        unsetenv(name_.c_str());
    }
}

ScopedEnvironment::~ScopedEnvironment() { restore(name_, previous_); }

}  // namespace nnemu::props::testing
