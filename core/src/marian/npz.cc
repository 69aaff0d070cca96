#include "marian/npz.h"

#include <unzip.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "marian/limits.h"
#include "marian/npy.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

// minizip reads through these callbacks: a read-only stream over the caller's bytes.
struct MemoryStream {
  const uint8_t* data;
  uint64_t size;
  uint64_t pos = 0;
};

voidpf ZCALLBACK mem_open(voidpf opaque, const void*, int mode) {
  if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ) return nullptr;
  return opaque;
}
uLong ZCALLBACK mem_read(voidpf, voidpf stream, void* buf, uLong n) {
  auto* s = static_cast<MemoryStream*>(stream);
  const uint64_t k = std::min<uint64_t>(n, s->size - s->pos);
  std::memcpy(buf, s->data + s->pos, k);
  s->pos += k;
  return static_cast<uLong>(k);
}
uLong ZCALLBACK mem_write(voidpf, voidpf, const void*, uLong) { return 0; }
ZPOS64_T ZCALLBACK mem_tell(voidpf, voidpf stream) { return static_cast<MemoryStream*>(stream)->pos; }
long ZCALLBACK mem_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t base = 0;
  switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET: base = 0; break;
    case ZLIB_FILEFUNC_SEEK_CUR: base = s->pos; break;
    case ZLIB_FILEFUNC_SEEK_END: base = s->size; break;
    default: return -1;
  }
  if (offset > s->size || base > s->size - offset) return -1;
  s->pos = base + offset;
  return 0;
}
int ZCALLBACK mem_close(voidpf, voidpf) { return 0; }
int ZCALLBACK mem_error(voidpf, voidpf) { return 0; }

}  // namespace

std::vector<MarianItem> read_npz(const uint8_t* data, size_t size, size_t limit, const std::string& what) {
  auto bad = [&](const std::string& msg) { return Error(what + ": not a readable .npz file (" + msg + ")"); };
  if (size < 22) throw bad("the file has " + std::to_string(size) + " bytes");
  MemoryStream stream{data, size};
  zlib_filefunc64_def io{mem_open, mem_read, mem_write, mem_tell, mem_seek, mem_close, mem_error, &stream};
  unzFile zip = unzOpen2_64(what.c_str(), &io);
  if (!zip) throw bad("no zip directory found: truncated or not a zip file");
  struct Close {
    unzFile z;
    ~Close() { unzClose(z); }
  } close{zip};

  // The directory first: every entry's name, sizes and where its data lies.
  struct Entry {
    std::string name;
    uint64_t packed, size, start;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  int rc = unzGoToFirstFile(zip);
  if (rc != UNZ_OK) throw bad("the zip directory is corrupted or empty");
  for (; rc == UNZ_OK; rc = unzGoToNextFile(zip)) {
    if (entries.size() == kMaxItems) {
      throw bad("more than " + std::to_string(kMaxItems) + " entries, more than any Marian model has");
    }
    unz_file_info64 info;
    char name_buf[1024];
    if (unzGetCurrentFileInfo64(zip, &info, name_buf, sizeof name_buf, nullptr, 0, nullptr, 0) != UNZ_OK) {
      throw bad("a zip directory entry is corrupted");
    }
    const std::string entry(name_buf, std::min<size_t>(info.size_filename, sizeof name_buf - 1));
    const std::string ewhat = what + ": entry " + printable(entry);
    if (entry.size() < 5 || entry.compare(entry.size() - 4, 4, ".npy") != 0) {
      throw Error(ewhat + ": not a .npy array (a Marian .npz holds only arrays)");
    }
    if (info.compression_method != 0 && info.compression_method != Z_DEFLATED) {
      throw Error(ewhat + ": compression method " + std::to_string(info.compression_method) +
                  " (zip entries must be stored or deflated)");
    }
    // Deflate makes at most 1032 bytes of 1 (zlib's technical details); a stored entry is its size.
    const uint64_t most = info.compression_method == 0 ? info.compressed_size : info.compressed_size * 1032 + 1024;
    if (info.compressed_size > size || info.uncompressed_size > most) {
      throw Error(ewhat + ": claims " + std::to_string(info.uncompressed_size) + " bytes from " +
                  std::to_string(info.compressed_size) + " compressed, impossible (a corrupted or crafted zip)");
    }
    total += info.uncompressed_size;
    if (total > limit) {
      throw Error(what + ": its arrays hold more than " + size_text(limit) + " in all, the limit for model files");
    }
    if (unzOpenCurrentFile(zip) != UNZ_OK) throw Error(ewhat + ": cannot open the entry (corrupted local header)");
    const uint64_t start = unzGetCurrentFileZStreamPos64(zip);
    unzCloseCurrentFile(zip);
    if (start > size || info.compressed_size > size - start) throw Error(ewhat + ": its data runs past the end of the file");
    entries.push_back({entry, info.compressed_size, info.uncompressed_size, start});
  }
  if (rc != UNZ_END_OF_LIST_OF_FILE) throw bad("the zip directory is corrupted");
  std::vector<const Entry*> by_start;
  for (const Entry& e : entries) by_start.push_back(&e);
  std::sort(by_start.begin(), by_start.end(), [](const Entry* a, const Entry* b) { return a->start < b->start; });
  for (size_t i = 1; i < by_start.size(); ++i) {
    if (by_start[i]->start < by_start[i - 1]->start + by_start[i - 1]->packed) {
      throw bad("entries " + printable(by_start[i - 1]->name) + " and " + printable(by_start[i]->name) +
                " share their data (a crafted zip)");
    }
  }

  // Then the arrays.
  std::vector<MarianItem> items;
  std::set<std::string> seen;
  rc = unzGoToFirstFile(zip);
  for (const Entry& e : entries) {
    const std::string ewhat = what + ": entry " + printable(e.name);
    if (rc != UNZ_OK || unzOpenCurrentFile(zip) != UNZ_OK) throw Error(ewhat + ": cannot open the entry");
    MarianItem item;
    item.owned.resize(e.size);
    uint64_t got = 0;
    while (got < e.size) {
      const unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(e.size - got, 1u << 30));
      const int n = unzReadCurrentFile(zip, item.owned.data() + got, chunk);
      if (n < 0) {
        unzCloseCurrentFile(zip);
        throw Error(ewhat + ": corrupted data (zip error " + std::to_string(n) + ")");
      }
      if (n == 0) break;
      got += unsigned(n);
    }
    char extra;
    if (got < e.size || unzReadCurrentFile(zip, &extra, 1) != 0) {
      unzCloseCurrentFile(zip);
      throw Error(ewhat + ": truncated or corrupted data (its size disagrees with the zip directory)");
    }
    if (unzCloseCurrentFile(zip) == UNZ_CRCERROR) throw Error(ewhat + ": corrupted data (CRC-32 mismatch)");
    item.name = e.name.substr(0, e.name.size() - 4);
    if (!seen.insert(item.name).second) throw Error(ewhat + ": occurs twice");
    parse_npy(item.owned.data(), item.owned.size(), ewhat, item);
    items.push_back(std::move(item));
    rc = unzGoToNextFile(zip);
  }
  return items;
}

}  // namespace tformer::marian
