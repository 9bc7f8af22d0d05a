// Every stored tensor of a model with its statistics (model_stats,
// onnxview/stats.hpp).
#include <algorithm>

#include "onnxview/stats.hpp"
#include "value_stats_internal.hpp"

namespace onnxview {

options stats_file_options(options base) noexcept {
    base.reads = model_reads::metadata;
    base.verify = true;
    return base;
}

namespace {

void give_back(void* user, const char* data, std::size_t size) {
    release_payload(*static_cast<const mapped_file*>(user), data, size);
}

// The name a reader of the model uses for a tensor: its own, or for a
// Constant node's value, the node's output.
std::string_view tensor_name(const stored_tensor& st) noexcept {
    std::string_view name = st.tensor.name();
    if (name.empty() && st.origin == tensor_origin::constant && st.holder.node.output().size() != 0)
        name = *st.holder.node.output().begin();
    return name;
}

struct stats_walk {
    model_file& mf;
    const model_stats_options& opts;
    tensor_stats_callback callback;
    void* user;
    model_stats_totals totals;
    tensor_stats record;
    detail::helper_thread helper;  // counts half of each large FLOAT payload

    bool wanted(std::string_view name) const {
        if (opts.names.empty()) return true;
        return std::find(opts.names.begin(), opts.names.end(), name) != opts.names.end();
    }

    void operator()(const stored_tensor& st) {
        if (st.sparse_indices) return;  // positions, not values
        const std::string_view name = tensor_name(st);
        if (!wanted(name)) return;
        tensor_stats& r = record;
        r.name.assign(name.data(), name.size());
        r.path.clear();
        append_tensor_path(st, r.path);
        r.origin = st.origin;
        r.data_type = st.tensor.data_type();
        r.dims.assign(st.tensor.dims().begin(), st.tensor.dims().end());
        r.storage = storage_kind::none;
        r.offset = st.tensor.wire_message().offset_of(st.tensor.wire_message().begin());
        r.failure = error();
        r.values = value_stats();
        r.where = st;
        result<tensor_data> d = mf.tensor(st.tensor);
        if (!d) {
            r.failure = d.err();
            // Where the payload is, though it cannot be read (an external
            // file missing, say).
            const result<storage_info> where = describe_storage(st.tensor);
            if (where) r.storage = where->kind;
        } else {
            r.storage = d->storage();
            value_stats_options vo;
            vo.histogram_bins = opts.histogram_bins;
            vo.payload_file = &mf;
            vo.piece_done = give_back;
            vo.user = const_cast<mapped_file*>(&mf.file());
            result<value_stats> s = count_values(*d, vo, &helper);
            if (s) r.values = std::move(*s);
            else r.failure = s.err();
        }
        ++totals.tensors;
        if (r.failure) {
            ++totals.unreadable;
        } else {
            totals.elements += r.values.elements;
            totals.values += r.values.values;
            totals.zeros += r.values.zeros;
            totals.nan += r.values.nan;
            totals.pos_inf += r.values.pos_inf;
            totals.neg_inf += r.values.neg_inf;
            totals.subnormal += r.values.subnormal;
        }
        if (callback != nullptr) callback(user, r);
    }
};

}  // namespace

result<model_stats_totals> model_stats(model_file& mf, const model_stats_options& opts,
                                       tensor_stats_callback callback, void* user) {
    stats_walk w{mf, opts, callback, user, {}, {}, {}};
    if (error e = for_each_tensor(mf.model(), w)) return e;
    return w.totals;
}

}  // namespace onnxview
