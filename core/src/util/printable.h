// Text from a file (a name in a crafted model, a file name in a downloaded folder) shown in a
// message: control characters, which a terminal would act on (escape sequences), become \xNN.
#pragma once

#include <string>
#include <string_view>

namespace tformer {

// `text` with every C0 control character, DEL and byte outside a UTF-8 sequence written as \xNN,
// and every C1 control character (U+0080..U+009F) as \u00NN; other characters unchanged.
std::string printable(std::string_view text);

}  // namespace tformer
