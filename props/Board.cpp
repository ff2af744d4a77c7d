#include "nnemu/props/Board.h"

#include <errno.h>  // program_invocation_short_name

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nnemu/base/Log.h"

namespace nnemu::props {

Board board() {
    const char* value = std::getenv(std::string(kBoardEnv).c_str());
    if (value == nullptr || *value == '\0' || strcasecmp(value, "android") == 0) return Board::ANDROID;
    if (strcasecmp(value, "yocto") == 0 || strcasecmp(value, "linux") == 0) return Board::YOCTO;
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
        NN_LOG(WARNING) << "ignoring " << kBoardEnv << "=" << value << ": not android or yocto; the board is android";
    }
    return Board::ANDROID;
}

std::string programName() {
    const char* name = program_invocation_short_name;
    return name != nullptr && *name != '\0' ? name : "unknown";
}

}  // namespace nnemu::props
