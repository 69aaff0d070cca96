// The LRU of tformer/translation_memory.h and its image. The image, all numbers little-endian:
//
//   "TFMEMORY" u32 version u64 entries, then per entry u32 key bytes, key, u32 value bytes, value
//   (least recently used first), then the sha256 of everything before it (32 bytes).
//
// Every length is checked against what is left before it is used, so a truncated or hostile image
// is refused without reading past its end or allocating what it claims.
#include "tformer/translation_memory.h"

#include <cstring>
#include <vector>

#include "memory/byte_io.h"
#include "tformer/catalog.h"
#include "tformer/error.h"

namespace tformer {
namespace {

constexpr char kMagic[8] = {'T', 'F', 'M', 'E', 'M', 'O', 'R', 'Y'};
constexpr uint32_t kImageVersion = 1;
constexpr size_t kDigestBytes = 32;

// Bytes an entry counts against max_bytes: its key and value and the bookkeeping around them.
size_t entry_bytes(const std::string& key, const std::string& value) { return key.size() + value.size() + 64; }

std::string digest(const std::string& bytes) {
  const std::string hex = catalog::sha256_hex(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::string raw(kDigestBytes, '\0');
  for (size_t i = 0; i < kDigestBytes; ++i) raw[i] = char(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return raw;
}

}  // namespace

TranslationMemory::TranslationMemory(const TranslationMemoryLimits& limits) : limits_(limits) {
  if (limits.max_entries == 0 || limits.max_bytes == 0)
    throw Error(ErrorCode::kInvalidArgument, Phase::kRequest,
                "a translation memory needs room: max entries and max bytes must be positive");
}

std::optional<std::string> TranslationMemory::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->value;
}

void TranslationMemory::put(const std::string& key, std::string value) {
  std::lock_guard<std::mutex> lock(mutex_);
  put_locked(key, std::move(value));
}

void TranslationMemory::put_locked(const std::string& key, std::string value) {
  if (entry_bytes(key, value) > limits_.max_bytes) return;
  const auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= entry_bytes(key, it->second->value);
    entries_.erase(it->second);
    index_.erase(it);
  }
  bytes_ += entry_bytes(key, value);
  entries_.push_front({key, std::move(value)});
  index_[key] = entries_.begin();
  evict_locked();
}

void TranslationMemory::evict_locked() {
  while (!entries_.empty() && (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes)) {
    const Entry& last = entries_.back();
    bytes_ -= entry_bytes(last.key, last.value);
    index_.erase(last.key);
    entries_.pop_back();
  }
}

void TranslationMemory::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) return;
  bytes_ -= entry_bytes(key, it->second->value);
  entries_.erase(it->second);
  index_.erase(it);
}

void TranslationMemory::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  index_.clear();
  bytes_ = 0;
  hits_ = misses_ = 0;
}

TranslationMemoryStats TranslationMemory::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {entries_.size(), bytes_, hits_, misses_};
}

std::string TranslationMemory::save() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ByteWriter w;
  w.raw(std::string(kMagic, sizeof kMagic));
  w.u32(kImageVersion);
  w.u64(entries_.size());
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    w.string(it->key);
    w.string(it->value);
  }
  std::string image = w.take();
  image += digest(image);
  return image;
}

std::string TranslationMemory::load(const std::string& image) {
  if (image.size() < sizeof kMagic + 12 + kDigestBytes || std::memcmp(image.data(), kMagic, sizeof kMagic) != 0)
    return "not a translation memory (" + std::to_string(image.size()) + " bytes without its header)";
  const std::string body = image.substr(0, image.size() - kDigestBytes);
  if (digest(body) != image.substr(body.size()))
    return "the translation memory is damaged or truncated (its checksum does not match)";
  std::vector<Entry> read;
  try {
    ByteReader r(body);
    r.skip(sizeof kMagic);
    const uint32_t version = r.u32();
    if (version != kImageVersion)
      return "the translation memory has version " + std::to_string(version) + ", this engine reads version " +
             std::to_string(kImageVersion);
    const uint64_t count = r.u64();
    // Each entry takes at least its two lengths: a count beyond that is a lie.
    if (count > r.left() / 8) return "the translation memory claims more entries than it holds";
    for (uint64_t i = 0; i < count; ++i) {
      Entry e;
      e.key = r.string();
      e.value = r.string();
      read.push_back(std::move(e));
    }
    if (r.left() != 0) return "the translation memory has bytes after its last entry";
  } catch (const Error& e) {
    return std::string("the translation memory cannot be read: ") + e.detail();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (Entry& e : read) put_locked(e.key, std::move(e.value));
  return "";
}

}  // namespace tformer
