#include "marian/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "marian/limits.h"
#include "tformer/error.h"
#include "util/little_endian.h"

namespace tformer::marian {

std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, size_t limit, const std::string& what,
                            const std::string& kind) {
  if (size < 18 || data[0] != 0x1f || data[1] != 0x8b) {
    throw Error(what + ": not a gzip file (it does not start with the gzip signature 1f 8b)");
  }
  auto too_large = [&] {
    return Error(what + ": decompresses to more than " + size_text(limit) + ", the limit for " + kind + " files");
  };
  // The trailer's ISIZE: the (last) member's length modulo 2^32 (limits are below 4 GiB). Deflate
  // makes at most 1032 bytes of one (zlib's technical details), so a larger claim is no size at
  // all (a truncated file, or garbage after the data, ends in other bytes): the output then grows
  // as it comes. A plausible claim above the limit is refused before anything is inflated. One
  // byte more than declared lets zlib read the trailer without asking for room; one more than the
  // limit tells that the data goes past it.
  const uint32_t declared = load_u32_le(data + size - 4);
  const bool plausible = declared <= uint64_t(size) * 1032;
  if (plausible && declared > limit) throw too_large();
  std::vector<uint8_t> out(plausible ? size_t(declared) + 1 : std::min<size_t>(limit + 1, 1 << 16));

  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw Error(what + ": zlib could not start inflating");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  size_t in_pos = 0, produced = 0;
  // A .gz file may hold several members one after the other (as gzip reads them): each is
  // inflated in turn; anything else after the data is an error.
  for (bool first = true; first || in_pos < size; first = false) {
    if (!first) {
      if (size - in_pos < 2 || data[in_pos] != 0x1f || data[in_pos + 1] != 0x8b) {
        throw Error(what + ": " + std::to_string(size - in_pos) + " bytes of garbage after the gzip data");
      }
      inflateReset(&zs);
    }
    int rc = Z_OK;
    do {
      if (produced > limit) throw too_large();
      if (produced == out.size()) {
        // More than the trailer declared (the members before the last one): grow, to the limit.
        out.resize(std::min(limit + 1, std::max<size_t>(out.size() * 2, 1 << 16)));
      }
      zs.next_in = const_cast<Bytef*>(data + in_pos);
      zs.avail_in = static_cast<uInt>(std::min<size_t>(size - in_pos, 1u << 30));
      zs.next_out = out.data() + produced;
      zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
      const uInt in_before = zs.avail_in, out_before = zs.avail_out;
      rc = inflate(&zs, Z_NO_FLUSH);
      in_pos += in_before - zs.avail_in;
      produced += out_before - zs.avail_out;
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
        throw Error(what + ": corrupted gzip data (" + std::string(zs.msg ? zs.msg : "inflate failed") + ")");
      }
      if (rc == Z_MEM_ERROR) throw Error(what + ": out of memory while decompressing");
      if (rc == Z_BUF_ERROR && in_pos >= size) {
        throw Error(what + ": truncated gzip file (the compressed data ends early)");
      }
    } while (rc != Z_STREAM_END);
    if (produced > limit) throw too_large();
  }
  out.resize(produced);
  return out;
}

}  // namespace tformer::marian
