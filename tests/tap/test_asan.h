/* test_asan.h: TEST_ASAN is 1 in a build with AddressSanitizer (gcc's
 * __SANITIZE_ADDRESS__ or clang's __has_feature), for tests whose sizes or
 * checks differ there. */
#ifndef OXL_TEST_ASAN_H
#define OXL_TEST_ASAN_H
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#endif
