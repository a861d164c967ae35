// Process-wide libcurl initialisation guard, created once by main().
#pragma once

namespace k25 {

// curl_global_init / curl_global_cleanup. Create exactly one, in main(), before any thread or other curl
// call; it must outlive every other curl object.
class CurlGlobal {
 public:
  CurlGlobal();  // throws RuntimeFault when libcurl cannot be initialised
  ~CurlGlobal();
  CurlGlobal(const CurlGlobal&) = delete;
  CurlGlobal& operator=(const CurlGlobal&) = delete;
};

}  // namespace k25
