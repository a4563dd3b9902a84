# Debian packages from the build: `cpack -G DEB` in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr (tests/tools/debian.sh does it, runs lintian and
# installs them into a fresh Debian 12 root). One package per install COMPONENT:
#   libslinky0              the shared library (SONAME libslinky.so.0), symbols file
#   libslinky-dev           headers, .so, .a, pkg-config, CMake files, API reference
#   slinky-tools            slinkyctl, slinky-jail, slinky-user-add, slinky-ledger-keys,
#                           slinky-apiserver, man pages, bash completion
#   slinky-operator         the operator, its man page, the CRDs (/usr/share/slinky)
#   python3-slinky          the Python module
#   slurm-spank-slinky-jail slinky_jail.so in Slurm's PluginDir
# Dependencies come from dpkg-shlibdeps; the packages that need libslinky0 depend
# on this exact version.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libslinky)
set(CPACK_PACKAGE_VENDOR "libslinky")
set(CPACK_PACKAGE_CONTACT "libslinky maintainers <libslinky@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Slurm on Kubernetes, the Slinky way")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libslinky.so.0 of the programs is in the libslinky0 package: let dpkg-shlibdeps see the built one
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR})
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/SlinkyProject")
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL libslinky0 dev tools operator python3 spank)
set(_deb_ver "${PROJECT_VERSION}-1")

set(CPACK_DEBIAN_LIBSLINKY0_PACKAGE_NAME libslinky0)
set(CPACK_DEBIAN_LIBSLINKY0_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIBSLINKY0_DESCRIPTION "Slurm on Kubernetes, the Slinky way - library\n The C library: Kubernetes client, Slinky resource models, slurm.conf\n rendering and semantic diff, identity ledger, per-job jails.")
set(CPACK_DEBIAN_LIBSLINKY0_PACKAGE_CONTROL_EXTRA
  "${CMAKE_BINARY_DIR}/debian/libslinky0/symbols;${CMAKE_BINARY_DIR}/debian/libslinky0/shlibs;${CMAKE_BINARY_DIR}/debian/libslinky0/triggers")
set(CPACK_DEBIAN_LIBSLINKY0_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libslinky-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libslinky0 (= ${_deb_ver}), libcurl4-openssl-dev | libcurl-dev, libyajl-dev, libyaml-dev, libgit2-dev, libgnutls28-dev, libldap-dev, zlib1g-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_DEV_DESCRIPTION "Slurm on Kubernetes, the Slinky way - development files\n Headers, the static library, pkg-config and CMake files and the API\n reference of libslinky.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME slinky-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libslinky0 (= ${_deb_ver})")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "Slurm on Kubernetes, the Slinky way - admin tools\n slinkyctl (kubectl habits for Slinky resources, slurm.conf checks and\n edits, the identity ledger), slinky-jail, slinky-user-add,\n slinky-ledger-keys and slinky-apiserver.")

set(CPACK_DEBIAN_OPERATOR_PACKAGE_NAME slinky-operator)
set(CPACK_DEBIAN_OPERATOR_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_OPERATOR_PACKAGE_DEPENDS "libslinky0 (= ${_deb_ver})")
set(CPACK_COMPONENT_OPERATOR_DESCRIPTION "Slurm on Kubernetes, the Slinky way - operator\n Renders, checks and applies slurm.conf for Slinky Controllers; the CRDs\n in /usr/share/slinky/crds.")

set(CPACK_DEBIAN_PYTHON3_PACKAGE_NAME python3-slinky)
set(CPACK_DEBIAN_PYTHON3_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON3_PACKAGE_DEPENDS "libslinky0 (= ${_deb_ver}), python3")
set(CPACK_COMPONENT_PYTHON3_DESCRIPTION "Slurm on Kubernetes, the Slinky way - Python 3 module\n The slinky module for Debian's python3.")

set(CPACK_DEBIAN_SPANK_PACKAGE_NAME slurm-spank-slinky-jail)
set(CPACK_DEBIAN_SPANK_PACKAGE_SECTION admin)
set(CPACK_COMPONENT_SPANK_DESCRIPTION "Slurm on Kubernetes, the Slinky way - SPANK jail plugin\n slinky_jail.so: every job step in a per-job jail (slinky-jail.yaml(5)).")

# debian/ control files for libslinky0 and the doc files every package carries
set(_d ${CMAKE_BINARY_DIR}/debian)
file(MAKE_DIRECTORY ${_d}/libslinky0)
file(WRITE ${_d}/libslinky0/shlibs "libslinky 0 libslinky0 (>= ${PROJECT_VERSION})\n")
file(WRITE ${_d}/libslinky0/triggers "activate-noawait ldconfig\n")
add_custom_command(OUTPUT ${_d}/libslinky0/symbols
  COMMAND sh ${CMAKE_SOURCE_DIR}/cmake/deb-symbols.sh $<TARGET_FILE:slinky> ${CMAKE_SOURCE_DIR}/libslinky/libslinky.map
    ${PROJECT_VERSION} > ${_d}/libslinky0/symbols
  DEPENDS slinky ${CMAKE_SOURCE_DIR}/cmake/deb-symbols.sh ${CMAKE_SOURCE_DIR}/libslinky/libslinky.map
  COMMENT "libslinky0 symbols file from the version script" VERBATIM)
add_custom_target(deb-symbols ALL DEPENDS ${_d}/libslinky0/symbols)
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(c libslinky0 dev tools operator python3 spank)
  string(TOUPPER ${c} C)
  set(pkg ${CPACK_DEBIAN_${C}_PACKAGE_NAME})
  file(WRITE ${_d}/${pkg}.changelog
    "${pkg} (${_deb_ver}) unstable; urgency=medium\n\n  * Package built from the libslinky tree.\n\n -- ${CPACK_PACKAGE_CONTACT}  ${_date}\n")
  add_custom_command(OUTPUT ${_d}/${pkg}.changelog.gz
    COMMAND gzip -9nc ${_d}/${pkg}.changelog > ${_d}/${pkg}.changelog.gz
    DEPENDS ${_d}/${pkg}.changelog VERBATIM)
  list(APPEND _changelogs ${_d}/${pkg}.changelog.gz)
  install(FILES ${_d}/${pkg}.changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
    RENAME changelog.Debian.gz COMPONENT ${c})
  install(FILES ${CMAKE_SOURCE_DIR}/cmake/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
    COMPONENT ${c})
endforeach()
add_custom_target(deb-changelogs ALL DEPENDS ${_changelogs})
include(CPack)
