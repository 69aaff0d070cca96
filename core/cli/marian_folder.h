// A Marian model folder on disk, as the importer reads it (tformer/marian.h): the folder's
// entries, plus files named on the command line that lie elsewhere (--vocab, --spm, --config given
// as paths; they win over a file of the same name in the folder). A file is read only when the
// import asks for it, only if it is a regular file (a FIFO would block, a device never end), and
// only when it holds no more than the import's limit for its kind.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tformer/marian.h"

namespace tformer::cli {

class MarianFolder : public MarianFileSource {
 public:
  // Throws tformer::Error when the folder cannot be listed.
  MarianFolder(const std::string& folder, const std::vector<std::string>& named_paths);

  std::vector<std::string> names() const override;
  MarianBytes read(const std::string& name, size_t limit) override;

 private:
  std::map<std::string, std::string> paths_;  // name in the folder -> path
  std::map<std::string, std::vector<uint8_t>> read_;
};

}  // namespace tformer::cli
