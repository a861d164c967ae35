// libcurl global init and cleanup.
#include "serve/curl_global.hpp"

#include <string>

#include <curl/curl.h>

#include "common/error.hpp"

namespace k25 {

CurlGlobal::CurlGlobal() {
  const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK)
    throw RuntimeFault(std::string("libcurl initialisation failed: ") + curl_easy_strerror(rc),
                       "curl_global_init", __FILE__, __LINE__);
}

CurlGlobal::~CurlGlobal() {
  curl_global_cleanup();
}

}  // namespace k25
