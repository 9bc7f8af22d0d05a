// onnxview/model_file.hpp - a model opened from a path in one call: the
// mapped file, its parsed root view, and the resolver of its external data.
//
//   auto mf = onnxview::model_file::open("net.onnx");
//   if (!mf) { /* mf.err(); mf->... not usable */ }
//   const onnxview::model_view& m = mf->model();
//   for (const onnxview::tensor_view& t : m.graph().initializer()) {
//       auto d = mf->tensor(t);                 // raw, typed or external payload
//       if (d) for (float x : d->scalars<float>()) use(x);
//   }
//
// Cost: open() maps the file (no read), indexes the ModelProto's own fields
// and canonicalizes the model's directory; external files are opened on the
// first tensor that needs them. Lifetime: every view, span and tensor_data
// obtained through a model_file is valid while that model_file lives;
// moving it keeps views valid (the bytes do not move) but invalidates
// external_payload_source values taken from it before the move.
#ifndef ONNXVIEW_MODEL_FILE_HPP
#define ONNXVIEW_MODEL_FILE_HPP

#include "onnxview/external_source.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {

// All-zero is the default.
struct model_file_options {
    open_options file;                 // how the model file is read (map, read, hints)
    external_data_options external;    // model_path is filled in by open() when null
    parse_options parse;               // depth limit
};

class model_file {
public:
    model_file() noexcept = default;

    // Opens and maps `path`, parses the root ModelProto's own fields and
    // prepares external-data resolution relative to the model's directory.
    // Errors: those of mapped_file::open, of external_data_resolver::create,
    // and a malformed ModelProto top level.
    static result<model_file> open(const char* path, const model_file_options& options = {}) noexcept;

    const model_view& model() const noexcept { return model_; }
    std::string_view bytes() const noexcept { return file_.bytes(); }
    const mapped_file& file() const noexcept { return file_; }

    // A payload source resolving this model's external data (valid while
    // this object lives and is not moved).
    external_payload_source external() noexcept { return external_source(resolver_); }
    // The resolver, e.g. for file_count().
    const external_data_resolver& resolver() const noexcept { return resolver_; }

    // The data of any tensor of this model, wherever its payload lives.
    result<tensor_data> tensor(const tensor_view& t) noexcept {
        const external_payload_source src = external();
        return tensor_data::make(t, &src);
    }

private:
    mapped_file file_;
    model_view model_;
    external_data_resolver resolver_;
};

}  // namespace onnxview

#endif  // ONNXVIEW_MODEL_FILE_HPP
