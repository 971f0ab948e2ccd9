@"%~dp0argvecho.exe" %*
