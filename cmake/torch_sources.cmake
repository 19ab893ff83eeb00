# Which translation units parse LibTorch's headers, directly or through the project's own
# headers, so that only they load the precompiled header (SYMGNN_PCH in CMakeLists.txt):
# loading it costs about 3 s, parsing the headers it holds about 10 s, so a file that does
# not use LibTorch is faster without it.

set(_symgnn_include_roots ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)

# _symgnn_parses_torch(<file> <out-var>): TRUE when <file> includes a LibTorch header or a
# project header that does. Answers are remembered per file for the whole configure run.
function(_symgnn_parses_torch file out)
  get_property(_known GLOBAL PROPERTY "SYMGNN_TORCH_${file}" SET)
  if(_known)
    get_property(_answer GLOBAL PROPERTY "SYMGNN_TORCH_${file}")
    set(${out} ${_answer} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "SYMGNN_TORCH_${file}" FALSE)  # a cycle of includes ends here
  file(STRINGS ${file} _lines REGEX "^[ \t]*#[ \t]*include")
  set(_answer FALSE)
  get_filename_component(_here ${file} DIRECTORY)
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "<(torch|ATen|c10)/")
      set(_answer TRUE)
      break()
    endif()
    if(_line MATCHES "\"([^\"]+)\"")
      set(_name ${CMAKE_MATCH_1})
      foreach(_root ${_here} ${_symgnn_include_roots})
        if(EXISTS ${_root}/${_name})
          _symgnn_parses_torch(${_root}/${_name} _inner)
          if(_inner)
            set(_answer TRUE)
          endif()
          break()
        endif()
      endforeach()
      if(_answer)
        break()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "SYMGNN_TORCH_${file}" ${_answer})
  set(${out} ${_answer} PARENT_SCOPE)
endfunction()

# symgnn_skip_pch_without_torch(<target>): the target's sources that do not parse LibTorch
# compile without the precompiled header.
function(symgnn_skip_pch_without_torch target)
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  foreach(_src IN LISTS _srcs)
    get_filename_component(_path ${_src} ABSOLUTE BASE_DIR ${_dir})
    _symgnn_parses_torch(${_path} _torch)
    if(NOT _torch)
      set_source_files_properties(${_src} TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()
