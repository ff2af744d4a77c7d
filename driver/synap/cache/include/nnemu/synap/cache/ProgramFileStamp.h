// A program file's stamp (nnemu/cache/FileStamp.h). An entry index records the stamp of a
// program file whose bytes are known to be right (this process wrote and linked it, or
// checksummed it in full); a hit through the index that finds exactly that stamp skips the
// checksum.
#pragma once

#include "nnemu/cache/FileStamp.h"

namespace nnemu::cache {

using ProgramFileStamp = FileStamp;

}  // namespace nnemu::cache
