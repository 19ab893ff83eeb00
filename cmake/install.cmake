# What `cmake --install build [--prefix P] [--component C]` puts in place (README, "Installing"):
#   dev     the public headers, the static libraries behind them and a CMake package, so that
#           another project does find_package(symgnn) and links symgnn::symgnn
#           (tests/package/ builds such a project against a fresh install);
#   cli     the `symgnn` command, which is what the .deb holds (cmake/cpack.cmake);
#   python  the Python package into the interpreter's site-packages (python/CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The libraries the public headers (include/symgnn/) are implemented in: symgnn_fit and all
# it links (blend: its NNLS weighs train.auto's members, fit/member_selection.h). serve,
# ranking_blend, reproduce, tune and the CLI's library have no public header, so they stay
# out, and with them cpp-httplib and CLI11 as dependencies of users.
set(_symgnn_dev_libs symgnn_util symgnn_data symgnn_runtime symgnn_graph symgnn_eval symgnn_models
    symgnn_train symgnn_infer symgnn_blend symgnn_fit)
foreach(_lib ${_symgnn_dev_libs})
  string(REPLACE "symgnn_" "" _short ${_lib})
  set_target_properties(${_lib} PROPERTIES EXPORT_NAME ${_short})  # symgnn::fit, symgnn::infer, ...
endforeach()

# symgnn::symgnn, the one target a user links. An INTERFACE library of its own because the
# name `symgnn` is the command's here; the alias lets code in this tree say the same.
add_library(symgnn_package INTERFACE)
target_link_libraries(symgnn_package INTERFACE symgnn_fit)
set_target_properties(symgnn_package PROPERTIES EXPORT_NAME symgnn)
add_library(symgnn::symgnn ALIAS symgnn_package)

install(TARGETS ${_symgnn_dev_libs} symgnn_package EXPORT symgnnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The public headers include one another, LibTorch and nlohmann/json only: no header of src/.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/symgnn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

set(_symgnn_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/symgnn)
install(EXPORT symgnnTargets NAMESPACE symgnn:: DESTINATION ${_symgnn_cmake_dir} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/symgnnConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/symgnnConfig.cmake
                              INSTALL_DESTINATION ${_symgnn_cmake_dir})
# 0.x: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/symgnnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/symgnnConfig.cmake
              ${CMAKE_BINARY_DIR}/package/symgnnConfigVersion.cmake
        DESTINATION ${_symgnn_cmake_dir} COMPONENT dev)

install(TARGETS symgnn RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
