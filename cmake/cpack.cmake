# `cpack -G DEB` in a build folder (scripts/package_deb.sh): symgnn_<version>_amd64.deb, the
# `symgnn` command in /usr/bin for people who use the command line only. Only the `cli`
# component goes in: headers and static libraries are for C++ users (cmake --install), and
# the Python package is pip's (pyproject.toml).
set(CPACK_PACKAGE_NAME symgnn)
set(CPACK_PACKAGE_VENDOR symgnn)
set(CPACK_PACKAGE_CONTACT "symgnn developers <symgnn@localhost>")  # DEB requires a maintainer
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "geometric matrix completion with Sylvester Multi-Graph Neural Networks (command line)")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<release>_<arch>.deb, Debian's naming
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)  # one package named symgnn, not symgnn-cli
set(CPACK_STRIP_FILES ON)
# Depends from the libraries the binary links (dpkg-shlibdeps, from dpkg-dev): libtorch1.13,
# libhdf5-103-1, libssl3, libcpp-httplib0.11, ... with the versions Debian's shlibs files give.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# LibTorch calls whatever libblas.so.3 resolves to; the reference BLAS is ~30x slower
# (README, "Performance notes"). gnuplot draws `symgnn reproduce`'s figures.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox")
include(CPack)
