# Decides whether the Python module (python/) is built: on when SOWZERO_PYTHON is set (the
# default) and Debian's python3-dev and numpy headers are found, off under ThreadSanitizer (python3 can
# load a TSan-instrumented module only with libtsan preloaded, and the threaded C code has its own TSan
# tests). Included by the top-level CMakeLists.txt before the module folders, because the extension links
# their static libraries into a shared object: they are then compiled position-independent (the README's
# "Python" section gives the measured cost: none beyond noise in `sowzero bench env` / `bench search`).
set(SOWZERO_PYTHON_BUILD OFF)
if(SOWZERO_PYTHON AND SOWZERO_TSAN)
  message(STATUS "Python module: not built under ThreadSanitizer")
elseif(SOWZERO_PYTHON)
  # Debian's interpreter, not whichever python3 comes first on PATH (numpy and pytest are Debian's).
  if(EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy)
  if(Python3_Development.Module_FOUND AND Python3_NumPy_FOUND)
    set(SOWZERO_PYTHON_BUILD ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "Python module: built for ${Python3_EXECUTABLE} (numpy ${Python3_NumPy_VERSION})")
  else()
    message(STATUS "Python module: not built (python3-dev and python3-numpy not found; scripts/setup-debian.sh)")
  endif()
endif()
