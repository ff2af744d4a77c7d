// Makes file permissions stop root too, for tests of refusals (an unreadable file, a read-only
// directory): CI runs as root, whom CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH let through every
// mode check. While the object lives, both are out of the calling thread's effective set (they
// stay permitted and come back at the end), so the kernel refuses root as it refuses anyone else
// and the code's real refusal path runs. Capabilities are per thread: run the code under test on
// this thread.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <initializer_list>

namespace nnemu::props::testing {

class FilePermissionsApply {
public:
    FilePermissionsApply() {
        if (!syscallCaps(SYS_capget, saved_)) return;
        __user_cap_data_struct lowered[_LINUX_CAPABILITY_U32S_3];
        for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; ++i) lowered[i] = saved_[i];
        for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH}) lowered[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
        active_ = syscallCaps(SYS_capset, lowered);
    }
    ~FilePermissionsApply() {
        if (active_) syscallCaps(SYS_capset, saved_);
    }
    FilePermissionsApply(const FilePermissionsApply&) = delete;
    FilePermissionsApply& operator=(const FilePermissionsApply&) = delete;

    // false: the capabilities could not be lowered (the test cannot show a refusal).
    bool active() const { return active_; }

private:
    static bool syscallCaps(long call, __user_cap_data_struct* data) {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};  // pid 0: this thread
        return syscall(call, &header, data) == 0;
    }

    __user_cap_data_struct saved_[_LINUX_CAPABILITY_U32S_3]{};
    bool active_ = false;
};

}  // namespace nnemu::props::testing
