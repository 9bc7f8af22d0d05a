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
// first tensor that needs them. With `verify` it also walks every message's
// tags once (payloads are skipped by their lengths). Lifetime: every view,
// span and tensor_data obtained through a model_file is valid while that
// model_file lives; moving it keeps views valid (the bytes do not move) but
// invalidates external_payload_source values taken from it before the move.
#ifndef ONNXVIEW_MODEL_FILE_HPP
#define ONNXVIEW_MODEL_FILE_HPP

#include "onnxview/external_source.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {

// What the caller will read of a mapped model. A hint: it changes how much
// the system reads ahead from disk, never what is read.
enum class model_reads : std::uint8_t {
    everything = 0,  // the system's default read-ahead
    // The graph, not the weights: open() applies advise_metadata_reads
    // (onnxview/metadata_reads.hpp; this replaces file.hint), which prefetches
    // the metadata it finds by the model's structure and advises random
    // access elsewhere, so a cold page fault on a tensor's header does not
    // read the weights around it. tensor() and sparse_tensor() turn
    // read-ahead back on for the bytes of the tensor they read. Files under
    // metadata_read_limits::whole_below (4 MiB) are prefetched whole.
    metadata,
};

// All-zero is the default.
struct model_file_options {
    open_options file;                 // how the model file is read (map, read, hints)
    external_data_options external;    // model_path is filled in by open() when null
    parse_options parse;               // depth limit
    // verify() the whole model before open() returns, so that no view made
    // from model() meets a malformed byte. Without it open() reads the
    // ModelProto's own fields only, and nested messages are checked when
    // their views are made.
    bool verify = false;
    // A file that is read but does not parse (or, with `verify`, verify) as
    // a ModelProto still opens: model() is then empty, model_error() says
    // why, and bytes() stay available, e.g. to run a checker or a printer
    // over them or to name the field path of the error. Without it open()
    // returns that error.
    bool keep_malformed = false;
    model_reads reads = model_reads::everything;
};

class model_file {
public:
    model_file() noexcept = default;

    // Opens and maps `path`, parses the root ModelProto's own fields (or
    // verifies the whole model, see model_file_options::verify) and prepares
    // external-data resolution relative to the model's directory. Errors:
    // those of mapped_file::open, of external_data_resolver::create, and a
    // malformed ModelProto (unless options.keep_malformed).
    static result<model_file> open(const char* path, const model_file_options& options = {}) noexcept;

    const model_view& model() const noexcept { return model_; }
    // Why model() is empty: ok unless open() kept a malformed model
    // (model_file_options::keep_malformed). The offset is into bytes().
    error model_error() const noexcept { return model_error_; }
    std::string_view bytes() const noexcept { return file_.bytes(); }
    const mapped_file& file() const noexcept { return file_; }

    // A payload source resolving this model's external data (valid while
    // this object lives and is not moved).
    external_payload_source external() noexcept { return external_source(resolver_); }
    // The resolver, e.g. for file_count().
    const external_data_resolver& resolver() const noexcept { return resolver_; }

    // The data of any tensor of this model, wherever its payload lives
    // (tensor_data::make with this model's external data). With
    // model_reads::metadata the tensor's bytes are read ahead.
    result<tensor_data> tensor(const tensor_view& t) noexcept;
    // A sparse tensor of this model, values and indices wherever they live
    // (sparse_data::make with this model's external data); read ahead as
    // tensor() does.
    result<sparse_data> sparse_tensor(const sparse_tensor_view& s) noexcept;

private:
    // Read-ahead on for the bytes of `t` when open() turned it off.
    void read_ahead(const tensor_view& t) const noexcept;

    mapped_file file_;
    model_view model_;
    error model_error_;
    external_data_resolver resolver_;
    bool read_ahead_off_ = false;  // model_reads::metadata advised random access
};

}  // namespace onnxview

#endif  // ONNXVIEW_MODEL_FILE_HPP
