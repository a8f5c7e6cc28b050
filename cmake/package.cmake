# cmake/package.cmake: the CMake package of an installed oxl
# (find_package(oxl), docs/testing.md "CMake"): oxlConfig.cmake, its
# version file and oxl_add_tests() in <prefix>/lib/cmake/oxl.
include(CMakePackageConfigHelpers)
# the version the driver prints (set in compiler/driver/sources.cmake, a scope below)
file(STRINGS ${PROJECT_SOURCE_DIR}/compiler/driver/sources.cmake _oxl_version_line
     REGEX "^set\\(OXL_VERSION_STRING \"[0-9.]+\"\\)$")
string(REGEX REPLACE "^.*\"([0-9.]+)\".*$" "\\1" OXL_VERSION_STRING "${_oxl_version_line}")
if(NOT OXL_VERSION_STRING MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "cmake/package.cmake: no OXL_VERSION_STRING in compiler/driver/sources.cmake")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/oxlConfig.cmake.in ${CMAKE_BINARY_DIR}/cmake/oxlConfig.cmake @ONLY)
# 0.x: a minor version may break; one of the same major and minor, at least as new, will do
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/oxlConfigVersion.cmake
  VERSION ${OXL_VERSION_STRING} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/oxlConfig.cmake ${CMAKE_BINARY_DIR}/cmake/oxlConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/oxlTests.cmake
        DESTINATION lib/cmake/oxl)
