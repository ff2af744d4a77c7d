// Android's rules for property names and values. The messages follow toybox's setprop, which
// repeats init's checks so that the user learns why a property cannot be set.
#include <cctype>
#include <string>

#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

bool fail(std::string* error, std::string message) {
    if (error != nullptr) *error = std::move(message);
    return false;
}

bool isNameCharacter(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return (u < 0x80 && std::isalnum(u)) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@';
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

}  // namespace

bool isValidName(std::string_view name, std::string* error) {
    const std::string quoted = "'" + std::string(name) + "'";
    if (name.empty()) return fail(error, "property name must not be empty");
    if (name.size() > kMaxNameLength) {
        return fail(error, "name " + quoted + " too long (at most " + std::to_string(kMaxNameLength) +
                               " characters)");
    }
    if (name.front() == '.' || name.back() == '.') {
        return fail(error, "property names must not start or end with '.'");
    }
    if (name.find("..") != std::string_view::npos) {
        return fail(error, "'..' is not allowed in a property name");
    }
    for (char c : name) {
        if (!isNameCharacter(c)) {
            return fail(error, std::string("invalid character '") + c + "' in name " + quoted);
        }
    }
    return true;
}

bool isValidValue(std::string_view value, std::string* error) {
    if (value.size() > kMaxValueLength) {
        return fail(error, "value '" + std::string(value) + "' too long; try '" +
                               std::string(value.substr(0, kMaxValueLength)) + "'");
    }
    for (char c : value) {
        if (c == '\n' || c == '\r' || c == '\0') {
            return fail(error, "property values must not contain newlines or NUL characters");
        }
    }
    // The file format trims whitespace around a value, so such a value could not be read back.
    if (!value.empty() && (isSpace(value.front()) || isSpace(value.back()))) {
        return fail(error, "property values must not start or end with whitespace");
    }
    return true;
}

}  // namespace nnemu::props
