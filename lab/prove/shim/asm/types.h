/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Frama-C preprocesses with its own libc and -nostdinc, so the system's
 * <asm/types.h> (the __u8 ... of tools/include's compiler.h) is not seen.
 */
#ifndef __PROVE_ASM_TYPES_H__
#define __PROVE_ASM_TYPES_H__

typedef unsigned char __u8;
typedef signed char __s8;
typedef unsigned short __u16;
typedef signed short __s16;
typedef unsigned int __u32;
typedef signed int __s32;
typedef unsigned long long __u64;
typedef signed long long __s64;

#endif /* __PROVE_ASM_TYPES_H__ */
