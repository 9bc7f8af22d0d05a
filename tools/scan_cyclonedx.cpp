// tools/scan_cyclonedx.cpp - scan records as a CycloneDX 1.6 BOM
// (scan_cyclonedx.hpp). Field names and enumerations follow the CycloneDX
// 1.6 JSON schema, which tests/oracle/scan_oracle.py validates against.
#include "scan_cyclonedx.hpp"

#include <filesystem>

namespace onnxview_cli {
namespace {

using onnxview::json_writer;

void property(json_writer& w, const std::string& name, const std::string& value) {
    w.begin_object();
    w.field("name", std::string_view(name));
    w.field("value", std::string_view(value));
    w.end_object();
}

void sha256(json_writer& w, const std::string& hex) {
    if (hex.empty()) return;
    w.key("hashes");
    w.begin_array();
    w.begin_object();
    w.field("alg", "SHA-256");
    w.field("content", std::string_view(hex));
    w.end_object();
    w.end_array();
}

}  // namespace

cyclonedx_bom::cyclonedx_bom() { components_.begin_array(); }

void cyclonedx_bom::add(const onnxview::scan_record& r) {
    if (!r.is_model) return;
    namespace fs = std::filesystem;
    const fs::path path(r.path);
    const std::string model_ref = "model:" + r.path;
    if (!models_.insert(model_ref).second) return;  // a target given twice: one component
    components_.begin_object();
    components_.field("type", "machine-learning-model");
    components_.field("bom-ref", std::string_view(model_ref));
    components_.field("name", std::string_view(path.filename().string()));
    sha256(components_, r.sha256);
    components_.key("properties");
    components_.begin_array();
    property(components_, "onnxview:path", r.path);
    property(components_, "onnxview:size", std::to_string(r.size));
    property(components_, "onnxview:ir_version", std::to_string(r.ir_version));
    for (const auto& [domain, version] : r.opsets)
        property(components_, "onnxview:opset:" + (domain.empty() ? std::string("ai.onnx") : domain),
                 std::to_string(version));
    property(components_, "onnxview:parameters", std::to_string(r.parameters));
    if (!r.producer_name.empty())
        property(components_, "onnxview:producer",
                 r.producer_name + (r.producer_version.empty() ? "" : " " + r.producer_version));
    for (const onnxview::scan_finding& f : r.findings)
        property(components_, "onnxview:finding:" + f.code,
                 std::string(onnxview::scan_severity_name(f.severity)) + ": " +
                     (f.where.empty() ? f.message : f.where + ": " + f.message));
    components_.end_array();
    components_.end_object();
    std::vector<std::string> depends;
    for (const onnxview::scan_external_file& e : r.external_files) {
        const std::string file = (path.parent_path() / fs::path(e.location)).lexically_normal().string();
        const std::string ref = "file:" + file;
        depends.push_back(ref);
        if (!files_.insert(ref).second) continue;
        components_.begin_object();
        components_.field("type", "data");
        components_.field("bom-ref", std::string_view(ref));
        components_.field("name", std::string_view(e.location));
        sha256(components_, e.sha256);
        components_.key("data");
        components_.begin_array();
        components_.begin_object();
        components_.field("type", "dataset");
        components_.field("name", std::string_view(e.location));
        components_.end_object();
        components_.end_array();
        components_.key("properties");
        components_.begin_array();
        property(components_, "onnxview:path", file);
        property(components_, "onnxview:exists", e.exists ? "true" : "false");
        if (e.exists) property(components_, "onnxview:size", std::to_string(e.size));
        components_.end_array();
        components_.end_object();
    }
    dependencies_.emplace_back(model_ref, std::move(depends));
}

std::string cyclonedx_bom::document() {
    components_.end_array();
    json_writer w;
    w.begin_object();
    w.field("bomFormat", "CycloneDX");
    w.field("specVersion", "1.6");
    w.field("version", std::uint64_t(1));
    w.key("metadata");
    w.begin_object();
    w.key("tools");
    w.begin_object();
    w.key("components");
    w.begin_array();
    w.begin_object();
    w.field("type", "application");
    w.field("name", "onnxview");
    w.field("version", "0.1.0");
    w.end_object();
    w.end_array();
    w.end_object();
    w.end_object();
    w.key("components");
    std::string components = components_.str();
    while (!components.empty() && components.back() == '\n') components.pop_back();
    w.number(components);
    w.key("dependencies");
    w.begin_array();
    for (const auto& [ref, depends] : dependencies_) {
        w.begin_object();
        w.field("ref", std::string_view(ref));
        w.key("dependsOn");
        w.begin_array();
        for (const std::string& d : depends) w.value(std::string_view(d));
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.str();
}

}  // namespace onnxview_cli
