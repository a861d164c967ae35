// Move-only RAII owners of libcurl handles: easy, multi and header list.
#pragma once

#include <memory>
#include <string>

#include <curl/curl.h>

namespace k25 {

struct CurlEasyDeleter {
  void operator()(CURL* easy) const noexcept { curl_easy_cleanup(easy); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* multi) const noexcept { curl_multi_cleanup(multi); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};

using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMulti = std::unique_ptr<CURLM, CurlMultiDeleter>;

// An HTTP header list; append() keeps ownership inside.
class CurlHeaderList {
 public:
  void append(const std::string& header);  // throws RuntimeFault on allocation failure
  curl_slist* get() const noexcept { return list_.get(); }

 private:
  std::unique_ptr<curl_slist, CurlSlistDeleter> list_;
};

CurlEasy make_curl_easy();    // throws RuntimeFault when libcurl returns no handle
CurlMulti make_curl_multi();  // idem

}  // namespace k25
