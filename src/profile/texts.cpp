// src/profile/texts.cpp - profile_texts: the texts a profile makes itself
// (scopes, reasons, cost bases), each stored once for all the nodes
// sharing it.
#include <string>
#include <string_view>

#include "onnxview/profile.hpp"

namespace onnxview {

std::string_view profile_texts::intern(std::string_view text) {
    if (text.empty()) return std::string_view();
    if (const auto it = index_.find(text); it != index_.end()) return *it;
    const std::string& stored = stored_.emplace_back(text);
    const std::string_view view(stored.data(), stored.size());
    index_.insert(view);
    return view;
}

}  // namespace onnxview
