// python/src/merge.cpp - onnxview.merge(): two models joined as
// `onnxview merge` joins them (merge_models, onnx.compose.merge_models'
// meaning), weights streamed from both files; the output appears whole or
// not at all (output_file).
#include <filesystem>
#include <string>
#include <vector>

#include "binding.hpp"
#include "onnxview/merge.hpp"
#include "onnxview/output_file.hpp"

namespace onnxview_py {

using namespace onnxview;

void register_merge(py::module_& m) {
    m.def("merge", [](const py::object& a_path, const py::object& b_path, const py::object& dst_path,
                      const py::object& io_map, const py::object& prefix_a, const py::object& prefix_b,
                      const py::object& external, bool allow_over_2gib) {
        const std::string a = file_path(a_path), b = file_path(b_path), out = file_path(dst_path);
        std::error_code ec;
        for (const std::string& in : {a, b})
            if (in == out || std::filesystem::equivalent(in, out, ec))
                throw py::value_error("the output '" + out + "' is an input; write to another file");
        // The metadata's pages as private copies: the merge reads every
        // tensor's header, which would map the weights around it.
        options opts{};
        opts.verify = true;
        opts.reads = model_reads::metadata;
        const source_ptr sa = open_model(a, opts), sb = open_model(b, opts);
        // The strings the request views live here until merge_models returns.
        std::vector<std::string> texts;
        std::vector<std::pair<std::size_t, std::size_t>> pairs;
        for (const py::handle& item : io_map) {
            const py::tuple t = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
            if (t.size() != 2) throw py::value_error("io_map holds (a_output, b_input) pairs");
            texts.push_back(from_name(t[0]));
            texts.push_back(from_name(t[1]));
            pairs.emplace_back(texts.size() - 2, texts.size() - 1);
        }
        std::vector<merge_connection> connections;
        for (const auto& p : pairs) connections.push_back({texts[p.first], texts[p.second]});
        const std::string pa = prefix_a.is_none() ? std::string() : from_name(prefix_a);
        const std::string pb = prefix_b.is_none() ? std::string() : from_name(prefix_b);
        merge_request request{};
        request.connections = connections.data();
        request.connection_count = connections.size();
        request.prefix_a = pa;
        request.prefix_b = pb;
        merge_report report;
        request.report = &report;
        pack_options po{};
        po.allow_over_2gib = allow_over_2gib;
        // Payload pages given back as they are written.
        const model_file* inputs[2] = {&sa->model, &sb->model};
        po.user = inputs;
        po.payload_written = [](void* user, const char* data, std::size_t size) noexcept {
            for (const model_file* f : *static_cast<const model_file* (*)[2]>(user))
                if (f->file().holds(data, size)) return release_payload(f->file(), data, size);
            release_pages(data, size);
        };
        const std::string external_name = external.is_none() ? std::string() : from_name(external);
        if (!external_name.empty()) {
            if (external_name.find_first_of("/\\") != std::string::npos)
                throw py::value_error("external is a file name in the output's directory, not a path");
            po.external_location = external_name;
        }
        const std::filesystem::path external_path =
            std::filesystem::path(out).parent_path() / std::filesystem::path(external_name);
        result<output_file> created = output_file::create(out.c_str());
        if (!created) raise_error(created.err(), nullptr, "cannot create a file next to '" + out + "'");
        output_file data;
        if (!external_name.empty()) {
            result<output_file> d = output_file::create(external_path.string().c_str());
            if (!d) raise_error(d.err(), nullptr, "cannot create '" + external_path.string() + "'");
            data = std::move(d.value());
        }
        const external_payload_source ea = sa->model.external(), eb = sb->model.external();
        const write_sink sink = created.value().sink();
        const write_sink data_sink = external_name.empty() ? write_sink{} : data.sink();
        pack_stats st;
        error failed;
        {
            py::gil_scoped_release unlocked;
            failed = merge_models(sa->bytes(), &ea, sb->bytes(), &eb, request, po, sink,
                                  external_name.empty() ? nullptr : &data_sink, &st);
        }
        if (failed && report.problem != merge_problem::none)
            throw py::value_error("cannot merge '" + a + "' and '" + b + "': '" + std::string(report.name) + "' " +
                                  merge_problem_message(report.problem));
        if (failed) raise_error(failed, nullptr, "cannot merge '" + a + "' and '" + b + "'");
        if (!external_name.empty())
            if (error c = data.commit()) raise_error(c, nullptr, "cannot write '" + external_path.string() + "'");
        if (error c = created.value().commit()) raise_error(c, nullptr, "cannot write '" + out + "'");
        py::dict r;
        r["bytes"] = st.model_bytes;
        r["external_bytes"] = st.external_bytes;
        r["nodes"] = report.nodes;
        r["initializers"] = report.initializers;
        r["functions"] = report.functions;
        return r;
    }, py::arg("a"), py::arg("b"), py::arg("dst"), py::kw_only(), py::arg("io_map") = py::list(),
       py::arg("prefix_a") = py::none(), py::arg("prefix_b") = py::none(), py::arg("external") = py::none(),
       py::arg("allow_over_2gib") = false,
       "Writes the merge of the models at `a` and `b` to `dst`, as `onnxview merge` (docs/writer.md):\n"
       "onnx.compose.merge_models' meaning, weights streamed from both files whatever their size.\n"
       "io_map: [(a_output, b_input), ...] before prefixes; prefix_a, prefix_b: as\n"
       "onnx.compose.add_prefix (subgraph references included); external: a file name beside `dst`\n"
       "for tensors of 1 KiB or more. Models that cannot be merged raise ValueError naming why.\n"
       "Returns {'bytes', 'external_bytes', 'nodes', 'initializers', 'functions'}.");
}

}  // namespace onnxview_py
