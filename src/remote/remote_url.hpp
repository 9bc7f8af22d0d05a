// Internal: what to ask for a remote URL (http, https, s3, hf): the HTTP(S)
// URL, the credentials and how they are sent, and the URL to show people.
#ifndef ONNXVIEW_SRC_REMOTE_REMOTE_URL_HPP
#define ONNXVIEW_SRC_REMOTE_REMOTE_URL_HPP

#include <string>
#include <string_view>

#include "onnxview/remote/remote_file.hpp"

namespace onnxview {
namespace detail {

struct remote_target {
    std::string url;      // http:// or https://
    std::string display;  // the URL given, without user, password or query
    std::string bearer;   // Authorization: Bearer, for the URL's host only
    // S3 Signature V4 (CURLOPT_AWS_SIGV4 "aws:amz:REGION:s3" with key:secret).
    std::string aws_sigv4;
    std::string aws_keys;
    std::string aws_session_token;
    // Certificates to verify TLS with instead of the system's (CURL_CA_BUNDLE).
    std::string ca_file;
    // S3 answers a request for several ranges with the whole object: ask for one at a time.
    bool multi_range = true;
    // The hint an answer 401 or 403 gets.
    const char* auth_hint = "the server wants credentials";
};

// Resolves `url`. Errors: invalid_argument (unknown scheme, no host, no key;
// why says which).
result<remote_target> resolve_remote_url(std::string_view url, const remote_options& opts, std::string& why);

// The URL without user:password@ and without its query (presigned URLs
// carry signatures there).
std::string display_url(std::string_view url);

// The value of an environment variable, "" when unset (or not read).
std::string environment(const char* name, const remote_options& opts);

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_REMOTE_REMOTE_URL_HPP
