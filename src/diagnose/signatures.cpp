// Formats told apart by their first bytes. Each magic number is the one its
// format's specification gives:
//   Git LFS pointer  git-lfs docs/spec.md: "version https://git-lfs.github.com/spec/v1",
//                    then "oid sha256:<hex>" and "size <n>" lines (the pre-release
//                    "https://hawser.github.com/spec/v1" is accepted too)
//   gzip             RFC 1952 2.3.1: ID1 ID2 = 1f 8b
//   bzip2            "BZh" and the block size '1'..'9' (bzip2 file format)
//   xz               The .xz File Format 2.1.1.1: fd 37 7a 58 5a 00
//   zstd             RFC 8878 3.1.1: magic 0xFD2FB528, little-endian
//   7z               7-Zip 7zFormat.txt: '7' 'z' bc af 27 1c
//   zip              PKWARE APPNOTE.TXT 4.3.7 / 4.3.12 / 4.3.16: local header
//                    PK\3\4, central directory PK\1\2, end of central directory PK\5\6
//   tar              POSIX.1 ustar header: "ustar" at offset 257
//   ORT              onnxruntime/core/flatbuffers/schema/ort.fbs: file_identifier "ORTM"
//   TensorFlow Lite  tensorflow/lite/schema/schema.fbs: file_identifier "TFL3"
//                    (a flatbuffer's identifier sits at offset 4, after the root offset)
//   safetensors      safetensors README "Format": u64 little-endian header size N,
//                    then N bytes of JSON starting with '{'
//   GGUF             ggml docs/gguf.md: "GGUF", then a u32 version
//   NumPy .npy       numpy.lib.format: "\x93NUMPY", major and minor version bytes
//   HDF5             HDF5 File Format Specification, superblock: \x89 "HDF" \r \n \x1a \n
//   pickle           PEP 307: PROTO opcode 0x80 and the protocol (2..5); STOP '.' last
//   legacy torch.save  torch/serialization.py: protocol 2, then MAGIC_NUMBER
//                    0x1950a86a20f9469cfc6c as a LONG1 (8a 0a and 10 bytes little-endian)
#include <cstring>

#include "line.hpp"

namespace onnxview {
namespace diagnosis_detail {
namespace {

// std::string_view::substr without its exception (a position past the end
// gives ""): substr's throw would link the exception machinery into every
// single-header program, used or not.
std::string_view slice(std::string_view s, std::size_t pos, std::size_t n = std::string_view::npos) noexcept {
    if (pos > s.size()) return std::string_view();
    return std::string_view(s.data() + pos, n < s.size() - pos ? n : s.size() - pos);
}

bool starts_with(const unsigned char* p, std::size_t n, const char* magic, std::size_t len) noexcept {
    return n >= len && std::memcmp(p, magic, len) == 0;
}

std::uint32_t le16(const unsigned char* p) noexcept { return p[0] | static_cast<std::uint32_t>(p[1]) << 8; }
std::uint32_t le32(const unsigned char* p) noexcept { return le16(p) | le16(p + 2) << 16; }
std::uint64_t le64(const unsigned char* p) noexcept { return le32(p) | static_cast<std::uint64_t>(le32(p + 4)) << 32; }

std::string_view view(const unsigned char* p, std::size_t n) noexcept {
    return std::string_view(reinterpret_cast<const char*>(p), n);
}

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
    return s.size() >= suffix.size() && slice(s, s.size() - suffix.size()) == suffix;
}

// ---- Git LFS pointer ------------------------------------------------------

bool git_lfs_pointer(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    const std::string_view s = view(p, n);
    if (slice(s, 0, 32) != "version https://git-lfs.github.c" && slice(s, 0, 31) != "version https://hawser.github.c")
        return false;
    std::string_view oid;
    std::uint64_t size = 0;
    bool has_size = false;
    for (std::size_t at = 0; at < s.size() && at < 1024;) {  // pointers are under 1024 bytes (spec)
        std::size_t eol = s.find('\n', at);
        if (eol == std::string_view::npos) eol = s.size();
        std::string_view line = slice(s, at, eol - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a checkout with CRLF line ends
        if (slice(line, 0, 4) == "oid ") oid = slice(line, 4);
        if (slice(line, 0, 5) == "size ") {
            has_size = line.size() > 5;
            for (char c : slice(line, 5)) {
                if (c < '0' || c > '9' || size > (~std::uint64_t(0) - 9) / 10) {
                    has_size = false;
                    break;
                }
                size = size * 10 + static_cast<unsigned>(c - '0');
            }
        }
        at = eol + 1;
    }
    d.kind = diagnosis_kind::git_lfs_pointer;
    d.detail = oid;
    d.number = has_size ? size : 0;
    line_builder l(d);
    l.text("a Git LFS pointer, not the model (");
    if (!oid.empty()) l.text("oid ").quoted(oid, 80).text(", ");
    if (has_size) l.number(size).text(" bytes");
    else l.text("size not given");
    l.text("): fetch the file itself with `git lfs pull` in its repository");
    return true;
}

// ---- text: HTML, XML, JSON, anything else ---------------------------------

// Length of the valid UTF-8 sequence at p[i] (i < n), 0 when invalid. A
// sequence cut by the end of the scanned prefix counts as valid.
std::size_t utf8_length(const unsigned char* p, std::size_t i, std::size_t n) noexcept {
    const unsigned c = p[i];
    std::size_t len;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3;
    else if (c >= 0xF0 && c <= 0xF4) len = 4;
    else return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if (i + k >= n) return n - i;
        if ((p[i + k] & 0xC0) != 0x80) return 0;
    }
    return len;
}

// True when the first 4 KiB are UTF-8 without control bytes other than
// tab, line feed, form feed and carriage return.
bool looks_like_text(const unsigned char* p, std::size_t n) noexcept {
    const std::size_t scan = n < 4096 ? n : 4096;
    for (std::size_t i = 0; i < scan;) {
        const unsigned c = p[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') return false;
        if (c == 0x7F) return false;
        const std::size_t len = utf8_length(p, i, scan);
        if (len == 0) return false;
        i += len;
    }
    return true;
}

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive search of `needle` (lower case) in the first `limit` bytes.
std::size_t find_nocase(std::string_view s, std::string_view needle, std::size_t limit) noexcept {
    if (s.size() > limit) s = slice(s, 0, limit);
    for (std::size_t i = 0; i + needle.size() <= s.size(); ++i) {
        std::size_t k = 0;
        while (k < needle.size() && lower(s[i + k]) == needle[k]) ++k;
        if (k == needle.size()) return i;
    }
    return std::string_view::npos;
}

// The first non-blank line, without the line break, at most 120 bytes.
std::string_view first_line(std::string_view s) noexcept {
    std::size_t b = 0;
    while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n' || s[b] == '\f')) ++b;
    s = slice(s, b);
    std::size_t e = 0;
    while (e < s.size() && e < 120 && s[e] != '\n' && s[e] != '\r') ++e;
    return slice(s, 0, e);
}

bool text_document(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    if (!looks_like_text(p, n)) return false;
    std::string_view s = view(p, n);
    if (slice(s, 0, 3) == "\xEF\xBB\xBF") s = slice(s, 3);  // a UTF-8 byte order mark
    const std::string_view first = first_line(s);
    d.detail = first;
    const char lead = first.empty() ? '\0' : first[0];
    line_builder l(d);
    if (lead == '<' && (find_nocase(s, "<html", 4096) != std::string_view::npos ||
                        find_nocase(s, "<!doctype html", 4096) != std::string_view::npos)) {
        d.kind = diagnosis_kind::html;
        l.text("an HTML page, not a model: the download saved a web page (an error or sign-in page, "
               "or a page link such as Hugging Face's /blob/ instead of /resolve/)");
        const std::size_t t = find_nocase(s, "<title>", 4096);
        if (t != std::string_view::npos) {
            const std::string_view rest = slice(s, t + 7);
            const std::size_t end = find_nocase(rest, "</title>", 512);
            if (end != std::string_view::npos && end > 0) l.text("; title ").quoted(slice(rest, 0, end), 80);
        }
        return true;
    }
    if (lead == '<') {
        d.kind = diagnosis_kind::xml;
        l.text("an XML document, not a model: likely a server's error response to the download");
        const std::size_t c = s.find("<Code>");
        if (c != std::string_view::npos && c < 4096) {
            const std::string_view rest = slice(s, c + 6);
            const std::size_t end = rest.find("</Code>");
            if (end != std::string_view::npos && end > 0 && end < 80) l.text(", code ").quoted(slice(rest, 0, end));
        }
        return true;
    }
    if (lead == '{' || lead == '[') {
        d.kind = diagnosis_kind::json;
        l.text("JSON text, not a model (a server's response or a configuration file): ").quoted(first, 100);
        return true;
    }
    d.kind = diagnosis_kind::text;
    l.text("text, not a model; it begins ").quoted(first, 100);
    return true;
}

// ---- archives -------------------------------------------------------------

// What one zip entry name says about the archive: 3 .onnx, 2 a torch.save
// pickle, 1 a .npy array, 0 nothing.
int zip_entry_rank(std::string_view name) noexcept {
    if (ends_with(name, ".onnx")) return 3;
    if (name == "data.pkl" || ends_with(name, "/data.pkl")) return 2;
    if (ends_with(name, ".npy")) return 1;
    return 0;
}

struct zip_entries {
    std::string_view first;
    std::string_view best;  // the entry of the highest rank
    int best_rank = 0;
    bool all_npy = true;
    std::uint64_t count = 0;

    void add(std::string_view name) noexcept {
        if (count++ == 0) first = name;
        const int r = zip_entry_rank(name);
        if (r > best_rank || (r > 0 && best.empty())) best_rank = r, best = name;
        if (r != 1 && !ends_with(name, "/")) all_npy = false;
    }
};

// Entry names from the central directory (found from the end of central
// directory record in the last 64 KiB + 22 bytes); false when there is none
// to read (a cut file, ZIP64 offsets).
bool zip_central_directory(const unsigned char* p, std::size_t n, zip_entries& z) noexcept {
    if (n < 22) return false;
    const std::size_t lowest = n - 22 > 65535 ? n - 22 - 65535 : 0;
    for (std::size_t at = n - 22 + 1; at-- > lowest;) {
        if (!starts_with(p + at, n - at, "PK\x05\x06", 4)) continue;
        const std::uint32_t entries = le16(p + at + 10);
        std::uint64_t dir = le32(p + at + 16);
        if (dir >= at) return false;
        for (std::uint32_t i = 0; i < entries && i < 4096; ++i) {
            if (at - dir < 46 || !starts_with(p + dir, n - dir, "PK\x01\x02", 4)) break;
            const std::uint32_t name_len = le16(p + dir + 28);
            const std::uint64_t next = dir + 46 + name_len + le16(p + dir + 30) + le16(p + dir + 32);
            if (next > at) break;
            z.add(view(p + dir + 46, name_len));
            dir = next;
        }
        return z.count > 0;
    }
    return false;
}

// Entry names from the local headers, while their sizes are known.
void zip_local_headers(const unsigned char* p, std::size_t n, zip_entries& z) noexcept {
    std::uint64_t at = 0;
    for (int i = 0; i < 4096 && n - at >= 30 && starts_with(p + at, n - at, "PK\x03\x04", 4); ++i) {
        const std::uint32_t flags = le16(p + at + 6);
        const std::uint64_t compressed = le32(p + at + 18);
        const std::uint32_t name_len = le16(p + at + 26);
        const std::uint32_t extra_len = le16(p + at + 28);
        if (n - at - 30 < name_len) break;
        z.add(view(p + at + 30, name_len));
        if ((flags & 8) != 0 || compressed == 0xFFFFFFFFu) break;  // size in a data descriptor, or ZIP64
        const std::uint64_t next = at + 30 + name_len + extra_len + compressed;
        if (next > n) break;
        at = next;
    }
}

bool zip_archive(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    if (!starts_with(p, n, "PK\x03\x04", 4) && !starts_with(p, n, "PK\x05\x06", 4) &&
        !starts_with(p, n, "PK\x07\x08", 4))
        return false;
    zip_entries z;
    if (!zip_central_directory(p, n, z)) zip_local_headers(p, n, z);
    line_builder l(d);
    if (z.best_rank == 3) {
        d.kind = diagnosis_kind::zip_onnx;
        d.detail = z.best;
        l.text("a zip archive holding ").quoted(z.best).text(
            " (the tf2onnx --large_model format): unzip it and open that .onnx; its weights are the files beside it");
    } else if (z.best_rank == 2) {
        d.kind = diagnosis_kind::zip_pytorch;
        d.detail = z.best;
        l.text("a PyTorch checkpoint (torch.save zip, ").quoted(z.best).text(
            "), not ONNX: export the model with torch.onnx.export");
    } else if (z.best_rank == 1 && z.all_npy) {
        d.kind = diagnosis_kind::zip_numpy;
        d.detail = z.best;
        l.text("a NumPy .npz archive (").quoted(z.best).text("), not a model");
    } else {
        d.kind = diagnosis_kind::zip;
        d.detail = z.first;
        l.text("a zip archive");
        if (z.count > 0) l.text(" (first entry ").quoted(z.first).text(")");
        l.text(", not a model: extract it first (unzip)");
    }
    d.number = z.count;
    return true;
}

bool tar_archive(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    if (n < 512 || std::memcmp(p + 257, "ustar", 5) != 0) return false;
    std::size_t len = 0;
    while (len < 100 && p[len] != 0) ++len;
    d.kind = diagnosis_kind::tar;
    d.detail = view(p, len);
    line_builder l(d);
    l.text("a tar archive (first entry ").quoted(d.detail).text("), not a model: extract it first (tar -xf)");
    return true;
}

bool compressed(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    line_builder l(d);
    if (starts_with(p, n, "\x1f\x8b", 2)) {
        d.kind = diagnosis_kind::gzip;
        l.text("gzip-compressed data, not a model: decompress it first (gunzip)");
    } else if (n >= 4 && starts_with(p, n, "BZh", 3) && p[3] >= '1' && p[3] <= '9') {
        d.kind = diagnosis_kind::bzip2;
        l.text("bzip2-compressed data, not a model: decompress it first (bunzip2)");
    } else if (starts_with(p, n, "\xfd" "7zXZ\x00", 6)) {
        d.kind = diagnosis_kind::xz;
        l.text("xz-compressed data, not a model: decompress it first (unxz)");
    } else if (starts_with(p, n, "\x28\xb5\x2f\xfd", 4)) {
        d.kind = diagnosis_kind::zstd;
        l.text("zstd-compressed data, not a model: decompress it first (unzstd)");
    } else if (starts_with(p, n, "7z\xbc\xaf\x27\x1c", 6)) {
        d.kind = diagnosis_kind::seven_zip;
        l.text("a 7z archive, not a model: extract it first (7z x)");
    } else {
        d.line[0] = '\0';
        return false;
    }
    return true;
}

// ---- models of other formats ----------------------------------------------

bool other_model(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    line_builder l(d);
    if (n >= 8 && std::memcmp(p + 4, "ORTM", 4) == 0) {
        d.kind = diagnosis_kind::onnxruntime_ort;
        l.text("an ONNX Runtime .ort model (flatbuffer 'ORTM'), not a protobuf ONNX model: "
               "load it with ONNX Runtime, or use the .onnx it was converted from");
    } else if (n >= 8 && std::memcmp(p + 4, "TFL3", 4) == 0) {
        d.kind = diagnosis_kind::tflite;
        l.text("a TensorFlow Lite model (flatbuffer 'TFL3'), not ONNX: convert it with tf2onnx (--tflite)");
    } else if (starts_with(p, n, "GGUF", 4) && n >= 8) {
        d.kind = diagnosis_kind::gguf;
        d.number = le32(p + 4);
        l.text("a GGUF model (llama.cpp/ggml) version ").number(d.number).text(", not ONNX");
    } else if (starts_with(p, n, "\x93NUMPY", 6) && n >= 8) {
        d.kind = diagnosis_kind::numpy;
        d.number = p[6];
        l.text("a NumPy .npy array (format ").number(p[6]).text(".").number(p[7]).text("), not a model");
    } else if (starts_with(p, n, "\x89HDF\r\n\x1a\n", 8)) {
        d.kind = diagnosis_kind::hdf5;
        l.text("an HDF5 file (a Keras .h5 model or weights?), not ONNX: convert the Keras model with tf2onnx");
    } else if (n >= 10 && le64(p) >= 2 && le64(p) <= n - 8 && p[8] == '{') {
        d.kind = diagnosis_kind::safetensors;
        d.number = le64(p);
        l.text("a safetensors file (").number(d.number).text(
            "-byte header): weights without a graph, not ONNX; export the model to ONNX (e.g. optimum-cli export onnx)");
    } else if (starts_with(p, n, "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14)) {
        d.kind = diagnosis_kind::pytorch_pickle;
        d.number = 2;
        l.text("a PyTorch checkpoint (legacy torch.save pickle), not ONNX: export the model with torch.onnx.export");
    } else if (n >= 3 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5 && p[n - 1] == '.') {
        d.kind = diagnosis_kind::pickle;
        d.number = p[1];
        l.text("a Python pickle (protocol ").number(p[1]).text(
            "; a PyTorch or scikit-learn file?), not ONNX: export the model to ONNX");
    } else {
        d.line[0] = '\0';
        return false;
    }
    return true;
}

}  // namespace

bool recognize_signature(const unsigned char* p, std::size_t n, diagnosis& d) noexcept {
    // Binary signatures first: a text scan of them would fail anyway, and a
    // Git LFS pointer is text that must not be called "text".
    return compressed(p, n, d) || zip_archive(p, n, d) || tar_archive(p, n, d) || other_model(p, n, d) ||
           git_lfs_pointer(p, n, d) || text_document(p, n, d);
}

}  // namespace diagnosis_detail
}  // namespace onnxview
