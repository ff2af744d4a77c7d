// benchmark_model's parameters: TFLite's flag set (names, types, defaults) plus nnemu's
// --input_file/--output_file, each remembering whether the command line set it, because only
// set parameters are logged unless --verbose.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace nnemu::benchmark {

enum class ParamType { BOOL, INT32, FLOAT, STRING };

struct ParamSpec {
    std::string name;
    ParamType type;
    std::string defaultValue;   // as typed on a command line
    std::string usage;
};

// Every flag benchmark_model accepts, in the order --help lists them.
const std::vector<ParamSpec>& benchmarkParamSpecs();

class BenchmarkParams {
public:
    using Value = std::variant<bool, int32_t, float, std::string>;

    BenchmarkParams();   // every flag at its default

    bool has(const std::string& name) const { return values_.count(name) != 0; }
    bool isSet(const std::string& name) const;   // given on the command line
    ParamType type(const std::string& name) const;

    bool getBool(const std::string& name) const { return std::get<bool>(entry(name).value); }
    int32_t getInt(const std::string& name) const { return std::get<int32_t>(entry(name).value); }
    float getFloat(const std::string& name) const { return std::get<float>(entry(name).value); }
    const std::string& getString(const std::string& name) const { return std::get<std::string>(entry(name).value); }

    // Parses text for the named parameter by its type and marks it set; false on a bad value.
    bool setFromText(const std::string& name, const std::string& text);
    void setInt(const std::string& name, int32_t value) { entry(name).value = value; }

    // The value as TFLite's logger streams it: bools as 1/0, floats with default precision.
    std::string valueText(const std::string& name) const;

private:
    struct Entry {
        ParamType type;
        Value value;
        bool set = false;
    };
    const Entry& entry(const std::string& name) const;
    Entry& entry(const std::string& name);

    std::map<std::string, Entry> values_;
};

// Parses one value of a type. Bools accept exactly true/false/1/0; numbers must be complete.
bool parseBool(const std::string& text, bool* value);
bool parseInt32(const std::string& text, int32_t* value);
bool parseFloat(const std::string& text, float* value);

}  // namespace nnemu::benchmark
