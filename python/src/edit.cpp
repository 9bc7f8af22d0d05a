// python/src/edit.cpp - onnxview.edit(): a model written again with edits,
// as `onnxview edit` makes them (pack_model with edit_options): metadata,
// producer, renames, doc strings stripped, nodes in topological order.
// Payloads are copied byte for byte, streamed; the output appears whole or
// not at all (output_file).
#include <filesystem>
#include <string>
#include <vector>

#include "binding.hpp"
#include "onnxview/output_file.hpp"
#include "onnxview/write.hpp"

namespace onnxview_py {

using namespace onnxview;

namespace {

std::string directory_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

bool same_directory(const std::string& a, const std::string& b) {
    std::error_code ec;
    return std::filesystem::equivalent(directory_of(a), directory_of(b), ec) && !ec;
}

}  // namespace

void register_edit(py::module_& m) {
    m.def("edit", [](const py::object& src_path, const py::object& dst_path, bool toposort, bool strip_doc_strings,
                     const py::dict& metadata, const py::object& producer, const py::dict& renames,
                     const py::object& prefix, bool allow_over_2gib) {
        const std::string in = file_path(src_path), out = file_path(dst_path);
        std::error_code ec;
        if (in == out || std::filesystem::equivalent(in, out, ec))
            throw py::value_error("the output '" + out + "' is the input; write to another file");
        options opts{};
        opts.verify = true;
        opts.drop_verified_pages = true;
        const source_ptr src = open_model(in, opts);
        // The strings the edits view live here until pack_model returns.
        std::vector<std::string> texts;
        texts.reserve(2 * (metadata.size() + renames.size()) + 2);
        auto keep = [&texts](std::string s) -> std::string_view { return texts.emplace_back(std::move(s)); };
        edit_options e{};
        e.toposort = toposort;
        toposort_report cycle;
        e.cycle = &cycle;
        e.strip_doc_strings = strip_doc_strings;
        std::vector<metadata_change> changes;
        for (const auto& kv : metadata) {
            metadata_change c;
            c.key = keep(from_name(kv.first));
            if (c.key.empty()) throw py::value_error("metadata keys may not be empty");
            if (kv.second.is_none()) c.remove = true;
            else c.value = keep(from_name(kv.second));
            changes.push_back(c);
        }
        e.metadata = changes.data();
        e.metadata_count = changes.size();
        if (!producer.is_none()) {
            e.set_producer_name = true;
            if (py::isinstance<py::tuple>(producer)) {
                const py::tuple t = producer.cast<py::tuple>();
                if (t.size() != 2) throw py::value_error("producer is a name, or a (name, version) tuple");
                e.producer_name = keep(from_name(t[0]));
                e.set_producer_version = true;
                e.producer_version = keep(from_name(t[1]));
            } else {
                e.producer_name = keep(from_name(producer));
            }
        }
        std::vector<name_change> changed_names;
        for (const auto& kv : renames) changed_names.push_back({keep(from_name(kv.first)), keep(from_name(kv.second))});
        e.renames = changed_names.data();
        e.rename_count = changed_names.size();
        if (!changed_names.empty()) {
            rename_check verdict;
            if (error c = check_renames(src->bytes(), e, &verdict, opts)) raise_error(c, src.get(), "cannot read '" + in + "'");
            if (verdict.problem != rename_problem::none)
                throw py::value_error("renames: " + std::string(changed_names[verdict.change].old_name) + " -> " +
                                      std::string(changed_names[verdict.change].new_name) + ": " +
                                      rename_problem_message(verdict.problem));
        }
        const std::string prefix_text = prefix.is_none() ? std::string() : from_name(prefix);
        if (!prefix.is_none() && prefix_text.empty()) throw py::value_error("prefix may not be empty");
        if (!prefix_text.empty() && !changed_names.empty())
            throw py::value_error("prefix excludes renames: make them in two edits");
        e.prefix = prefix_text;
        pack_options po{};
        po.inline_align = 1;  // tensors stay where they are
        po.keep_typed = true;
        po.allow_over_2gib = allow_over_2gib;
        po.edits = &e;
        result<output_file> created = output_file::create(out.c_str());
        if (!created) raise_error(created.err(), nullptr, "cannot create a file next to '" + out + "'");
        const external_payload_source ext = src->model.external();
        const write_sink sink = created.value().sink();
        pack_stats st;
        error failed;
        {
            py::gil_scoped_release unlocked;
            failed = pack_model(src->bytes(), &ext, po, sink, nullptr, &st);
        }
        if (failed && cycle.cycle)
            raise_error(failed, src.get(),
                        "cannot sort '" + in + "': a cycle through node '" + std::string(cycle.node) + "' (value '" +
                            std::string(cycle.value) + "')");
        if (failed && !prefix_text.empty() && failed.code == errc::invalid_argument)
            throw py::value_error("prefix '" + prefix_text +
                                  "': a subgraph declares the prefixed name of a main-graph value it reads");
        if (failed) raise_error(failed, src.get(), "cannot edit '" + in + "'");
        // Kept external references stay relative to the input's directory.
        if (st.external_kept != 0 && !same_directory(in, out))
            throw py::value_error(std::to_string(st.external_kept) +
                                  " external tensors would keep locations relative to the directory of '" + in +
                                  "': write the output there");
        if (error c = created.value().commit()) raise_error(c, nullptr, "cannot write '" + out + "'");
        py::dict r;
        r["bytes"] = st.model_bytes;
        r["nodes_moved"] = st.nodes_moved;
        r["names_renamed"] = st.names_renamed;
        return r;
    }, py::arg("src"), py::arg("dst"), py::kw_only(), py::arg("toposort") = false,
       py::arg("strip_doc_strings") = false, py::arg("metadata") = py::dict(), py::arg("producer") = py::none(),
       py::arg("renames") = py::dict(), py::arg("prefix") = py::none(), py::arg("allow_over_2gib") = false,
       "Writes the model at `src` to `dst` with edits, as `onnxview edit` (docs/writer.md): every\n"
       "payload copied byte for byte, streamed, `dst` appearing whole or not at all.\n"
       "toposort: the nodes of every graph, subgraph and function in a stable topological order (a\n"
       "cycle raises onnxview.Error naming a node on it); strip_doc_strings; metadata: {key: value,\n"
       "or None to remove}; producer: a name, or (name, version); renames: {old: new} for the main\n"
       "graph's values (as --rename; refused renames raise ValueError); prefix: as --prefix\n"
       "(onnx.compose.add_prefix's names, subgraph references included); allow_over_2gib.\n"
       "Returns {'bytes', 'nodes_moved', 'names_renamed'}.");
}

}  // namespace onnxview_py
