//! The Arm EABI's build attributes (`.ARM.attributes`): which profile the code was built for (a Cortex-M) and
//! whether it may use the FPU, as the exception-frame allowance needs them. Read by the ELF reader; knows
//! nothing of stacks or interrupts.

use std::collections::BTreeMap;

/// The Arm EABI's build attributes (`.ARM.attributes`, vendor `aeabi`, the file-wide subsection) as tag ->
/// integer value; string-valued tags are skipped. A malformed section yields what was read before the fault.
pub fn aeabi_attributes(data: &[u8]) -> BTreeMap<u64, u64> {
    let mut tags = BTreeMap::new();
    let Some((&b'A', mut rest)) = data.split_first() else {
        return tags;
    };
    while rest.len() >= 4 {
        let length = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if length < 4 || length > rest.len() {
            break;
        }
        let section = &rest[4..length];
        rest = &rest[length..];
        let Some(nul) = section.iter().position(|b| *b == 0) else {
            break;
        };
        if &section[..nul] != b"aeabi" {
            continue;
        }
        let mut sub = &section[nul + 1..];
        while let Some((tag, after)) = uleb(sub) {
            if after.len() < 4 {
                break;
            }
            let size = u32::from_le_bytes([after[0], after[1], after[2], after[3]]) as usize;
            let header = sub.len() - after.len() + 4;
            if size < header || size > sub.len() {
                break;
            }
            if tag == 1 {
                file_attributes(&sub[header..size], &mut tags);
            }
            sub = &sub[size..];
        }
    }
    tags
}

/// The attributes of a file-wide subsection: a tag, then an integer or a NUL-terminated string (tags 4, 5
/// and 67, and odd tags above 32), or both (tag 32, Tag_compatibility).
fn file_attributes(mut data: &[u8], tags: &mut BTreeMap<u64, u64>) {
    let skip_string = |d: &[u8]| d.iter().position(|b| *b == 0).map(|nul| nul + 1);
    while let Some((tag, after)) = uleb(data) {
        data = after;
        let string = matches!(tag, 4 | 5 | 67) || (tag > 32 && tag % 2 == 1);
        if tag == 32 {
            let Some((_, after)) = uleb(data) else { return };
            let Some(end) = skip_string(after) else {
                return;
            };
            data = &after[end..];
        } else if string {
            let Some(end) = skip_string(data) else { return };
            data = &data[end..];
        } else {
            let Some((value, after)) = uleb(data) else {
                return;
            };
            tags.insert(tag, value);
            data = after;
        }
    }
}

/// An unsigned LEB128 number and what follows it.
fn uleb(data: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, byte) in data.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, &data[i + 1..]));
        }
    }
    None
}
