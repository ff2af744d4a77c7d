// Android's rules for property names and values. The messages follow toybox's setprop, which
// repeats init's checks so that the user learns why a property cannot be set.
#include <cctype>
#include <string>

#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

bool isNameCharacter(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return (u < 0x80 && std::isalnum(u)) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@';
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

}  // namespace

Status isValidName(std::string_view name) {
    const std::string quoted = "'" + std::string(name) + "'";
    if (name.empty()) return badData("property name must not be empty");
    if (name.size() > kMaxNameLength) {
        return badData("name " + quoted + " too long (at most " + std::to_string(kMaxNameLength) + " characters)");
    }
    if (name.front() == '.' || name.back() == '.') {
        return badData("property names must not start or end with '.'");
    }
    if (name.find("..") != std::string_view::npos) {
        return badData("'..' is not allowed in a property name");
    }
    for (char c : name) {
        if (!isNameCharacter(c)) {
            return badData(std::string("invalid character '") + c + "' in name " + quoted);
        }
    }
    return {};
}

Status isValidValue(std::string_view value) {
    if (value.size() > kMaxValueLength) {
        return badData("value '" + std::string(value) + "' too long; try '" +
                       std::string(value.substr(0, kMaxValueLength)) + "'");
    }
    for (char c : value) {
        if (c == '\n' || c == '\r' || c == '\0') {
            return badData("property values must not contain newlines or NUL characters");
        }
    }
    // The file format trims whitespace around a value, so such a value could not be read back.
    if (!value.empty() && (isSpace(value.front()) || isSpace(value.back()))) {
        return badData("property values must not start or end with whitespace");
    }
    return {};
}

}  // namespace nnemu::props
