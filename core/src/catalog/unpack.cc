// A catalogue file made ready for use: its download checked against its record (size, sha256),
// decompressed with libzstd (Debian's natively; built from Debian's source for wasm) into at most
// decompressedSize bytes, and the result checked again (size, sha256). Nothing is trusted before
// its hash matched: a truncated, altered or oversized ("zstd bomb") file is refused with what
// differs.
#include <string>
#include <vector>

#include <zstd.h>

#include "tformer/catalog.h"

namespace tformer::catalog {
namespace {

Error download_error(const std::string& detail) { return Error(ErrorCode::kDownload, Phase::kDownload, detail); }

}  // namespace

std::vector<uint8_t> zstd_decompress(const uint8_t* data, size_t size, uint64_t max_output, const std::string& what) {
  if (size < 4 || !(data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd))
    throw download_error(what + " is not zstd data (no zstd frame header)");
  // A frame that states its size up front is refused before anything is allocated.
  const unsigned long long stated = ZSTD_getFrameContentSize(data, size);
  if (stated != ZSTD_CONTENTSIZE_UNKNOWN && stated != ZSTD_CONTENTSIZE_ERROR && stated > max_output)
    throw download_error(what + " decompresses to " + std::to_string(stated) + " bytes, more than the " +
                         std::to_string(max_output) + " its record states");
  std::vector<uint8_t> out(static_cast<size_t>(max_output));
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  if (!ctx) throw Error(ErrorCode::kResources, Phase::kDownload, "cannot create a zstd decompression context");
  ZSTD_inBuffer in{data, size, 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  // Once `out` is full, output goes to a one-byte probe: any byte there is one too many.
  uint8_t probe_byte;
  ZSTD_outBuffer probe{&probe_byte, 1, 0};
  std::string failure;
  while (true) {
    const size_t in_before = in.pos, out_before = o.pos;
    ZSTD_outBuffer* target = o.pos < o.size ? &o : &probe;
    const size_t r = ZSTD_decompressStream(ctx, target, &in);
    if (ZSTD_isError(r)) {
      failure = what + " is not valid zstd data: " + ZSTD_getErrorName(r);
      break;
    }
    if (probe.pos > 0) {
      failure = what + " decompresses to more than the " + std::to_string(max_output) + " bytes its record states";
      break;
    }
    if (in.pos == in.size && r == 0) break;  // every frame read and flushed
    if (in.pos == in_before && o.pos == out_before) {
      failure = what + " is truncated: its zstd frame ends early";
      break;
    }
  }
  ZSTD_freeDCtx(ctx);
  if (!failure.empty()) throw download_error(failure);
  out.resize(o.pos);
  return out;
}

std::vector<uint8_t> unpack(const Record& file, const uint8_t* data, size_t size) {
  const std::string what = file.attachment.filename.empty() ? file.name : file.attachment.filename;
  if (size != file.attachment.size)
    throw download_error(what + " is " + (size < file.attachment.size ? "truncated: " : "too long: ") +
                         std::to_string(size) + " of " + std::to_string(file.attachment.size) + " bytes");
  const std::string hash = sha256_hex(data, size);
  if (hash != file.attachment.hash)
    throw download_error(what + " does not match its sha256 (" + hash + ", expected " + file.attachment.hash + ")");
  std::vector<uint8_t> out = file.compressed() ? zstd_decompress(data, size, file.decompressed_size, what)
                                               : std::vector<uint8_t>(data, data + size);
  check_unpacked(file, out.data(), out.size());
  return out;
}

void check_unpacked(const Record& file, const uint8_t* data, size_t size) {
  if (size != file.decompressed_size)
    throw download_error(file.name + " is " + std::to_string(size) + " bytes, not the " +
                         std::to_string(file.decompressed_size) + " its record states");
  const std::string hash = sha256_hex(data, size);
  if (hash != file.decompressed_hash)
    throw download_error(file.name + " does not match its decompressedHash (" + hash + ", expected " +
                         file.decompressed_hash + ")");
}

}  // namespace tformer::catalog
