// A translation memory: sentences translated before, answered again without the model.
//
//   auto memory = std::make_shared<tformer::TranslationMemory>();
//   translator.use_memory(memory);          // several translators may share one memory
//   translator.translate({"Home. About us."});
//   translator.translate({"About us."});     // "About us." comes from the memory
//
// The memory works on sentences, not on whole input texts: pages repeat their menus, footers and
// buttons as sentences inside paragraphs that differ, and a sentence is the unit the engine
// translates on its own anyway (a sentence's translation does not depend on its neighbours).
// Its key is a sha256 of the model's identity (the sha256 of its .tfm bytes and the kernel
// library), every translate option that changes what a sentence becomes
// (memory_fingerprint() in tformer/options.h) and the sentence as the engine segmented it: a new
// model file or another option can never be answered with an old translation. Its value is all
// the engine returns for the sentence (hypotheses, scores, pieces, the alignment when it was
// asked for) and, in HTML mode, where its words came from: a hit gives exactly what computing it
// again would.
//
// It is an LRU cache bounded in entries and in bytes (keys and values), safe to share between
// threads. save() and load() give and take it as one image (the CLI's file in its cache folder;
// IndexedDB in the npm package); an image that is truncated, corrupt or made by something else is
// refused with a warning and never crashes, and each entry is checked again when it is used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace tformer {

struct TranslationMemoryLimits {
  size_t max_entries = 20000;
  size_t max_bytes = 64u << 20;  // keys and values
};

struct TranslationMemoryStats {
  size_t entries = 0;
  size_t bytes = 0;
  uint64_t hits = 0;    // sentences answered from the memory since it was made (or cleared)
  uint64_t misses = 0;  // sentences looked up and computed
};

class TranslationMemory {
 public:
  // Throws tformer::Error (kInvalidArgument) when a limit is 0.
  explicit TranslationMemory(const TranslationMemoryLimits& limits = {});

  // The value stored under `key`, now the most recently used; counts a hit or a miss.
  std::optional<std::string> find(const std::string& key);
  // Stores (or replaces) a value, dropping the least recently used entries beyond the limits. A
  // value larger than max_bytes on its own is not stored.
  void put(const std::string& key, std::string value);
  // Forgets a value that turned out unusable (TranslationSession checks each one it reads).
  void forget(const std::string& key);
  // Empties the memory and its counters.
  void clear();
  TranslationMemoryStats stats() const;
  const TranslationMemoryLimits& limits() const { return limits_; }

  // The whole memory as bytes: a header, the entries from least to most recently used, and a
  // sha256 of all that.
  std::string save() const;
  // Adds the entries of an image save() made (the newest kept within the limits). An image that
  // is not one, is truncated or fails its checksum adds nothing: the returned warning says why
  // ("" when it was read).
  std::string load(const std::string& image);

 private:
  struct Entry {
    std::string key, value;
  };
  void put_locked(const std::string& key, std::string value);
  void evict_locked();

  TranslationMemoryLimits limits_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace tformer
