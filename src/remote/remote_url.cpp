// What to ask for a remote URL (see remote_url.hpp).
#include "remote_url.hpp"

#include <cstdlib>

namespace onnxview {
namespace detail {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string without_trailing_slash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

// An S3 key as the path S3 signs: each byte but A-Z a-z 0-9 - _ . ~ and /
// percent-encoded (SigV4's canonical URI; libcurl signs the path as sent).
std::string s3_path(std::string_view key) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : key) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~' || c == '/') {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

// hf://[datasets/|spaces/]owner/repo[@revision]/path -> ENDPOINT/[datasets/]owner/repo/resolve/REV/path
bool hub_url(std::string_view rest, const remote_options& opts, remote_target& t, std::string& why) {
    std::string kind;
    for (std::string_view k : {"datasets/", "spaces/"})
        if (starts_with(rest, k)) {
            kind = std::string(k);
            rest.remove_prefix(k.size());
        }
    const std::size_t owner_end = rest.find('/');
    const std::size_t repo_end = owner_end == std::string_view::npos ? owner_end : rest.find('/', owner_end + 1);
    if (owner_end == 0 || owner_end == std::string_view::npos || repo_end == std::string_view::npos ||
        repo_end + 1 >= rest.size()) {
        why = "an hf:// URL names owner/repo[@revision]/path/in/repo";
        return false;
    }
    std::string_view repo = rest.substr(0, repo_end);
    std::string revision = "main";
    const std::size_t at = repo.find('@');
    if (at != std::string_view::npos) {
        revision = std::string(repo.substr(at + 1));
        repo = repo.substr(0, at);
        if (revision.empty()) {
            why = "an hf:// URL's @revision is empty";
            return false;
        }
    }
    std::string endpoint = environment("HF_ENDPOINT", opts);
    if (endpoint.empty()) endpoint = "https://huggingface.co";
    // A revision such as refs/pr/1 keeps its slashes: the Hub's resolve URL takes them.
    t.url = without_trailing_slash(endpoint) + "/" + kind + std::string(repo) + "/resolve/" + revision + "/" +
            std::string(rest.substr(repo_end + 1));
    if (t.bearer.empty()) t.bearer = environment("HF_TOKEN", opts);
    t.auth_hint = "a private or gated repository needs HF_TOKEN";
    return true;
}

// s3://bucket/key -> AWS_ENDPOINT_URL/bucket/key (path style) or https://bucket.s3.REGION.amazonaws.com/key
bool s3_url(std::string_view rest, const remote_options& opts, remote_target& t, std::string& why) {
    const std::size_t slash = rest.find('/');
    if (slash == 0 || slash == std::string_view::npos || slash + 1 >= rest.size()) {
        why = "an s3:// URL names bucket/key";
        return false;
    }
    const std::string bucket(rest.substr(0, slash));
    const std::string key(rest.substr(slash + 1));
    std::string region = environment("AWS_REGION", opts);
    if (region.empty()) region = environment("AWS_DEFAULT_REGION", opts);
    if (region.empty()) region = "us-east-1";
    const std::string endpoint = environment("AWS_ENDPOINT_URL", opts);
    if (!endpoint.empty())
        t.url = without_trailing_slash(endpoint) + "/" + bucket + "/" + s3_path(key);
    else
        t.url = "https://" + bucket + ".s3." + region + ".amazonaws.com/" + s3_path(key);
    const std::string id = environment("AWS_ACCESS_KEY_ID", opts);
    const std::string secret = environment("AWS_SECRET_ACCESS_KEY", opts);
    if (!id.empty() && !secret.empty()) {
        t.aws_sigv4 = "aws:amz:" + region + ":s3";
        t.aws_keys = id + ":" + secret;
        t.aws_session_token = environment("AWS_SESSION_TOKEN", opts);
    }
    t.multi_range = false;
    t.auth_hint = t.aws_keys.empty()
                      ? "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_REGION) for a private bucket"
                      : "check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION";
    return true;
}

}  // namespace

std::string environment(const char* name, const remote_options& opts) {
    if (!opts.read_environment) return std::string();
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string display_url(std::string_view url) {
    std::string out(url.substr(0, url.find_first_of("?#")));
    const std::size_t scheme = out.find("://");
    if (scheme == std::string::npos) return out;
    const std::size_t host = scheme + 3;
    const std::size_t path = out.find('/', host);
    const std::size_t at = out.rfind('@', path == std::string::npos ? out.size() : path);
    if (at != std::string::npos && at >= host) out.erase(host, at + 1 - host);
    return out;
}

result<remote_target> resolve_remote_url(std::string_view url, const remote_options& opts, std::string& why) {
    remote_target t;
    t.display = display_url(url);
    if (opts.bearer_token != nullptr) t.bearer = opts.bearer_token;
    if (t.bearer.empty()) t.bearer = environment("ONNXVIEW_HTTP_BEARER", opts);
    t.ca_file = environment("CURL_CA_BUNDLE", opts);
    for (char c : url)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
            why = "a URL has no spaces or control characters";
            return errc::invalid_argument;
        }
    if (starts_with(url, "http://") || starts_with(url, "https://")) {
        const std::size_t host = url.find("://") + 3;
        if (host >= url.size() || url[host] == '/') {
            why = "the URL names no host";
            return errc::invalid_argument;
        }
        t.url = std::string(url);
        return t;
    }
    bool ok = false;
    if (starts_with(url, "hf://"))
        ok = hub_url(url.substr(5), opts, t, why);
    else if (starts_with(url, "s3://"))
        ok = s3_url(url.substr(5), opts, t, why);
    else
        why = "remote files are http://, https://, s3:// or hf:// URLs";
    if (!ok) return errc::invalid_argument;
    return t;
}

}  // namespace detail
}  // namespace onnxview
