# What `cmake --install` puts under the prefix (docs/install.md):
#   bin/sowzero
#   lib/libsowzero.a (and lib/libsowzero.so when SOWZERO_SHARED_LIB): every library module in one library
#   include/sowzero/<module>/*.h            the modules' public headers, included as "env/game.h" with
#                                           include/sowzero on the include path
#   lib/pkgconfig/sowzero.pc                pkg-config --cflags --libs sowzero
#   lib/cmake/sowzero/                      find_package(sowzero) -> sowzero::sowzero
#   share/sowzero/{configs,data,nets}/      the shipped configs, position sets and nets
# Included at the end of the top-level CMakeLists.txt, after the module folders.
include(CMakePackageConfigHelpers)

set(SOWZERO_LIB_MODULES env nn selfplay eval train serve)
set(SOWZERO_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/sowzero")
set(SOWZERO_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/sowzero")
set(SOWZERO_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/sowzero")

# The one library a user links (-lsowzero): the module libraries' objects, compiled once for both them
# and this (no second compilation), and their dependencies.
set(sowzero_objects)
foreach(m ${SOWZERO_LIB_MODULES})
  list(APPEND sowzero_objects $<TARGET_OBJECTS:sowzero_${m}>)
endforeach()
set(sowzero_deps BLAS::BLAS hdf5::hdf5 ZLIB::ZLIB cjson PkgConfig::INIH PkgConfig::MHD Threads::Threads m)
if(SOWZERO_MPI)
  list(APPEND sowzero_deps MPI::MPI_C)
endif()
set(sowzero_include_dirs $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}> $<INSTALL_INTERFACE:${SOWZERO_INSTALL_INCLUDEDIR}>)

add_library(sowzero_static STATIC ${sowzero_objects})
set_target_properties(sowzero_static PROPERTIES OUTPUT_NAME sowzero EXPORT_NAME sowzero_static LINKER_LANGUAGE C)
target_link_libraries(sowzero_static INTERFACE ${sowzero_deps})
target_include_directories(sowzero_static INTERFACE ${sowzero_include_dirs})
set(sowzero_lib_targets sowzero_static)

if(SOWZERO_SHARED_LIB)
  add_library(sowzero_shared SHARED ${sowzero_objects})
  set_target_properties(sowzero_shared PROPERTIES OUTPUT_NAME sowzero EXPORT_NAME sowzero_shared LINKER_LANGUAGE C
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  target_link_libraries(sowzero_shared PRIVATE ${sowzero_deps})
  target_include_directories(sowzero_shared INTERFACE ${sowzero_include_dirs})
  list(APPEND sowzero_lib_targets sowzero_shared)
endif()

install(TARGETS sowzero RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${sowzero_lib_targets} EXPORT sowzeroTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The headers, minus the modules' private ones (the *_impl.h / *_internal.h halves of a module, HDF5
# helpers, the MPI wire format): the installed ones include nothing outside this set but the C library,
# <cjson/cJSON.h> and <signal.h>.
foreach(m ${SOWZERO_LIB_MODULES})
  file(GLOB headers CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/${m}/*.h" "${CMAKE_SOURCE_DIR}/${m}/*.def")
  list(FILTER headers EXCLUDE REGEX "(_impl|_internal)\\.h$|/nn/h5(util|search)\\.h$|/train/mpi_wire\\.h$")
  install(FILES ${headers} DESTINATION ${SOWZERO_INSTALL_INCLUDEDIR}/${m})
endforeach()

install(DIRECTORY ${CMAKE_SOURCE_DIR}/configs ${CMAKE_SOURCE_DIR}/data ${CMAKE_SOURCE_DIR}/nets
        DESTINATION ${SOWZERO_INSTALL_DATADIR})

# The CMake package.
install(EXPORT sowzeroTargets NAMESPACE sowzero:: DESTINATION ${SOWZERO_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/sowzeroConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/sowzeroConfig.cmake
                              INSTALL_DESTINATION ${SOWZERO_INSTALL_CMAKEDIR}
                              PATH_VARS SOWZERO_INSTALL_DATADIR)
# 0.x: a minor version may change the API (and the shared library's soname says so too).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/sowzeroConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/sowzeroConfig.cmake ${CMAKE_BINARY_DIR}/cmake/sowzeroConfigVersion.cmake
        DESTINATION ${SOWZERO_INSTALL_CMAKEDIR})

# The pkg-config file, relocatable (prefix from ${pcfiledir}, so `cmake --install --prefix P` works for any
# P). A dependency goes into Requires.private when its own .pc file is there, else into Libs.private.
file(RELATIVE_PATH SOWZERO_PC_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" SOWZERO_PC_PREFIX "${SOWZERO_PC_PREFIX}")
set(SOWZERO_PC_REQUIRES)
set(SOWZERO_PC_LIBS)
set(pc_deps openblas:openblas hdf5:hdf5 zlib:z libcjson:cjson inih:inih libmicrohttpd:microhttpd)
if(SOWZERO_MPI)
  list(APPEND pc_deps ompi-c:mpi)
endif()
foreach(dep ${pc_deps})
  string(REPLACE ":" ";" dep "${dep}")
  list(GET dep 0 module)
  list(GET dep 1 lib)
  string(MAKE_C_IDENTIFIER "SOWZERO_PC_${module}" var)
  pkg_check_modules(${var} QUIET ${module})
  if(${var}_FOUND)
    list(APPEND SOWZERO_PC_REQUIRES ${module})
  else()
    list(APPEND SOWZERO_PC_LIBS -l${lib})
  endif()
endforeach()
list(APPEND SOWZERO_PC_LIBS -pthread -lm)
list(JOIN SOWZERO_PC_REQUIRES ", " SOWZERO_PC_REQUIRES)
list(JOIN SOWZERO_PC_LIBS " " SOWZERO_PC_LIBS)
configure_file(${CMAKE_CURRENT_LIST_DIR}/sowzero.pc.in ${CMAKE_BINARY_DIR}/cmake/sowzero.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/sowzero.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
