@echo off
rem The `sightline` command inside the packaged app (Electron as Node).
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Sightline.exe" "%~dp0..\app.asar\out\main\cli.js" %*
