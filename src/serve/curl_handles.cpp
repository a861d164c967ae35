// Construction of the libcurl RAII owners; failures become RuntimeFault.
#include "serve/curl_handles.hpp"

#include "common/error.hpp"

namespace k25 {

void CurlHeaderList::append(const std::string& header) {
  curl_slist* grown = curl_slist_append(list_.get(), header.c_str());
  if (grown == nullptr)
    throw RuntimeFault("out of memory building HTTP headers", "curl_slist_append", __FILE__, __LINE__);
  (void)list_.release();  // curl_slist_append returns the same head once a list exists
  list_.reset(grown);
}

CurlEasy make_curl_easy() {
  CurlEasy easy(curl_easy_init());
  if (!easy) throw RuntimeFault("libcurl returned no easy handle", "curl_easy_init", __FILE__, __LINE__);
  return easy;
}

CurlMulti make_curl_multi() {
  CurlMulti multi(curl_multi_init());
  if (!multi) throw RuntimeFault("libcurl returned no multi handle", "curl_multi_init", __FILE__, __LINE__);
  return multi;
}

}  // namespace k25
