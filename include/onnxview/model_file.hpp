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
// A file supplied on demand (mapped_file::supplied, a remote model) is
// fetched before it is parsed: with model_reads::metadata everything but its
// tensors' numbers (fetch_metadata), which tensor() fetches; otherwise whole.
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

class model_file {
public:
    model_file() noexcept = default;

    // Opens and maps `path`, parses the root ModelProto's own fields (or
    // verifies the whole model, see options::verify) and prepares
    // external-data resolution relative to the model's directory. Errors:
    // those of mapped_file::open, of external_data_resolver::create, and a
    // malformed ModelProto (unless opts.keep_malformed). Of the options it
    // reads the model-file members, max_message_depth, release (with
    // verify) and the external-data members; model_path defaults to `path`.
    static result<model_file> open(const char* path, const options& opts = {}) noexcept;
    // The same for bytes already in hand (mapped_file::from_memory,
    // from_callbacks, or a file opened with other options): the model is
    // parsed, and its external data resolved relative to opts.model_path or
    // opts.external_base_dir (with neither: the current directory, or the
    // callbacks of opts.external_files). Errors: those of open() after the
    // file is read.
    static result<model_file> adopt(mapped_file&& file, const options& opts = {}) noexcept;
    // The same for bytes that hold the whole model, typically in memory:
    // its external data is not resolved (an EXTERNAL tensor's tensor() is
    // errc::external_not_opened) and opts.reads gives no read-ahead. Nothing
    // it calls opens a file, so a program that opens models only this way
    // links no external-data code (scripts/code_size.sh measures the C API
    // so, through onnxview_open_self_contained). Errors: a malformed
    // ModelProto, as adopt().
    static result<model_file> adopt_self_contained(mapped_file&& file, const options& opts = {}) noexcept;

    const model_view& model() const noexcept { return model_; }
    // Why model() is empty: ok unless open() kept a malformed model
    // (options::keep_malformed). The offset is into bytes().
    error model_error() const noexcept { return model_error_; }
    std::string_view bytes() const noexcept { return file_.bytes(); }
    const mapped_file& file() const noexcept { return file_; }

    // A payload source resolving this model's external data (valid while
    // this object lives and is not moved); one that refuses it
    // (external_not_opened) for a model opened self-contained.
    external_payload_source external() noexcept { return external_payload_source{&resolver_, fetch_external_}; }
    // The resolver, e.g. for file_count().
    const external_data_resolver& resolver() const noexcept { return resolver_; }

    // The data of any tensor of this model, wherever its payload lives
    // (tensor_data::make with this model's external data). With
    // model_reads::metadata the tensor's bytes are read ahead; a file
    // supplied on demand fetches them (its supplier's errors).
    result<tensor_data> tensor(const tensor_view& t) noexcept;
    // A sparse tensor of this model, values and indices wherever they live
    // (sparse_data::make with this model's external data); read ahead as
    // tensor() does.
    result<sparse_data> sparse_tensor(const sparse_tensor_view& s) noexcept;

    // The file whose bytes hold [data, data + size): this model's own, or
    // an external file it has opened; null for other memory. Its read_at
    // copies them (by pread with options::keep_descriptor, which maps
    // nothing: for jobs that stream every weight once, onnxview hash and
    // diff). O(external files opened).
    const mapped_file* file_holding(const char* data, std::size_t size) const noexcept {
        return file_.holds(data, size) ? &file_ : resolver_.file_holding(data, size);
    }

private:
    // Verifies (with opts.verify) and parses file_ as a ModelProto into
    // model_, or keeps the error (opts.keep_malformed); the rest of both adopts.
    error parse(const options& opts) noexcept;
    // A file supplied on demand: fetches what parse() and the views will
    // read (opts.reads). Other files: ok.
    error fetch_for_parse(const options& opts) const noexcept;
    // Read-ahead on for the bytes of `t` when open() turned it off; for a
    // file supplied on demand, its bytes fetched (the supplier's error).
    error read_ahead(const tensor_view& t) const noexcept;

    mapped_file file_;
    model_view model_;
    error model_error_;
    external_data_resolver resolver_;
    // How external() fetches: through resolver_, or (self-contained) not at
    // all. A function pointer rather than a call, so that a program using
    // only adopt_self_contained links no resolver.
    result<std::string_view> (*fetch_external_)(void* resolver, const tensor_view& t,
                                                std::uint64_t expected_bytes) = nullptr;
    bool read_ahead_off_ = false;  // model_reads::metadata advised random access
};

}  // namespace onnxview

#endif  // ONNXVIEW_MODEL_FILE_HPP
