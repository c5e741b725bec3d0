/* Test-only stand-in for Windows' bcryptprimitives.dll, for running the engine under Wine 8
 * (Debian 12), which lacks it. Rust's standard library (1.78 and later) asks this DLL for
 * ProcessPrng to seed its hash maps; Windows 10 and later have it, so players never need this.
 * It forwards to RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 *
 *   x86_64-w64-mingw32-gcc -O2 -shared -o bcryptprimitives.dll bcryptprimitives.c -ladvapi32
 *
 * and put the DLL beside othello-engine.exe (scripts/wine/run does both). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG part = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, part))
            return FALSE;
        data += part;
        length -= part;
    }
    return TRUE;
}
