/*
 * A stand-in for Windows' bcryptprimitives.dll, for running mcpv's Windows
 * binaries under wine releases that lack it (Debian 12 ships wine 8.0). The
 * Go runtime needs one function from it, ProcessPrng; this one fills the
 * buffer from RtlGenRandom (advapi32's SystemFunction036), which wine has.
 * Only scripts/wine-test.sh uses it; nothing of mcpv ships it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
