// model_file::open: the three steps every caller with a path would write.
#include "onnxview/model_file.hpp"

#include <utility>

namespace onnxview {

result<model_file> model_file::open(const char* path, const model_file_options& options) noexcept {
    auto file = mapped_file::open(path, options.file);
    if (!file) return file.err();
    model_file mf;
    mf.file_ = std::move(file.value());
    const std::string_view bytes = mf.file_.bytes();
    mf.model_ = parse_model(bytes.data(), bytes.size(), options.parse);
    if (!mf.model_.ok()) return mf.model_.err();
    external_data_options ext = options.external;
    if (ext.model_path == nullptr && ext.base_dir == nullptr) ext.model_path = path;
    auto resolver = external_data_resolver::create(ext);
    if (!resolver) return resolver.err();
    mf.resolver_ = std::move(resolver.value());
    return mf;
}

}  // namespace onnxview
