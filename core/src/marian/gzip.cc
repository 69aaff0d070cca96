// gzip (.gz copies of model files, as Firefox Translations ships them): zlib's inflate with the
// gzip wrapper, which checks the header, the CRC-32 and the length.
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "tformer/marian.h"

namespace tformer {

namespace {
// The largest decompressed file accepted: more than any Marian model or vocabulary, and less than
// a wasm32 heap can hold, so that a crafted .gz cannot make the importer allocate without end.
constexpr size_t kMaxGunzipBytes = size_t(1) << 31;
}  // namespace

std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, const std::string& what) {
  if (size < 18 || data[0] != 0x1f || data[1] != 0x8b) {
    throw Error(what + ": not a gzip file (it does not start with the gzip signature 1f 8b)");
  }
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw Error(what + ": zlib could not start inflating");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  std::vector<uint8_t> out;
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
      if (produced == out.size()) {
        if (out.size() >= kMaxGunzipBytes) {
          throw Error(what + ": decompresses to more than " + std::to_string(kMaxGunzipBytes >> 20) +
                      " MiB; not a model file");
        }
        out.resize(std::min(kMaxGunzipBytes, std::max<size_t>(out.size() * 2, std::max<size_t>(size * 2, 1 << 16))));
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
  }
  out.resize(produced);
  return out;
}

}  // namespace tformer
