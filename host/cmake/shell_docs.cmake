# Writes fieldflow's bash and zsh completion and its man page into OUT, from the built program
# FIELDFLOW (cmake -DFIELDFLOW=... -DOUT=... -P shell_docs.cmake): run at build time, installed
# by host/CMakeLists.txt.
file(MAKE_DIRECTORY ${OUT})
function(fieldflow_output name)
  execute_process(COMMAND ${FIELDFLOW} ${ARGN} OUTPUT_FILE ${OUT}/${name} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "`fieldflow ${ARGN}` failed (${result})")
  endif()
endfunction()
fieldflow_output(fieldflow.bash completion bash)
fieldflow_output(_fieldflow completion zsh)
fieldflow_output(fieldflow.1 man)
