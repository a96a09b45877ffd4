//! Real system-call failures for one thread: seccomp filters, installed on the calling
//! thread only (and inherited by the threads and processes it starts from then on).
//! Filters cannot be removed: install them on a thread that ends afterwards, or in a
//! process of its own.

/// Installs on the calling thread a filter that gives `action` (a `SECCOMP_RET_*`
/// value) to each of `syscalls` and allows every other system call. Fails, with no
/// filter installed, where the kernel refuses seccomp filters, e.g. in some containers.
pub fn filter_on_this_thread(syscalls: &[libc::c_long], action: u32) -> std::io::Result<()> {
    // offsetof(struct seccomp_data, nr)
    const NR: u32 = 0;
    let n = syscalls.len();
    // The program: load the number, one comparison per system call (a match jumps to
    // the last instruction), allow, and the action.
    let mut filter = vec![bpf(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, NR)];
    for (i, &nr) in syscalls.iter().enumerate() {
        filter.push(bpf(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            u8::try_from(n - i).expect("too many system calls for one filter"),
            0,
            u32::try_from(nr).expect("a system call number"),
        ));
    }
    let ret = |k| bpf(libc::BPF_RET | libc::BPF_K, 0, 0, k);
    filter.push(ret(libc::SECCOMP_RET_ALLOW));
    filter.push(ret(action));
    let program = libc::sock_fprog {
        len: u16::try_from(filter.len()).unwrap(),
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: plain prctl calls; `program` points to a valid filter that outlives the
    // call (the kernel copies it).
    let installed = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &raw const program,
                0,
                0,
            ) == 0
    };
    if installed {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn bpf(code: u32, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: u16::try_from(code).unwrap(),
        jt,
        jf,
        k,
    }
}

/// Makes the `getrandom` system call fail with `EIO` on the calling thread (and in
/// the threads and processes it starts from then on). Returns `false` (and says so,
/// with no filter installed) where the kernel refuses seccomp filters.
pub fn break_getrandom_on_this_thread() -> bool {
    #[allow(clippy::cast_sign_loss)]
    let eio = libc::SECCOMP_RET_ERRNO | libc::EIO as u32;
    if let Err(err) = filter_on_this_thread(&[libc::SYS_getrandom], eio) {
        eprintln!("skipped: seccomp filters are refused here ({err})");
        return false;
    }
    // The system call does fail now (a `getrandom` served without a system call,
    // e.g. from a vDSO, would make the tests meaningless).
    let mut byte = [0u8; 1];
    // SAFETY: a valid one-byte buffer.
    let rc = unsafe { libc::syscall(libc::SYS_getrandom, byte.as_mut_ptr(), 1usize, 0u32) };
    assert_eq!(rc, -1);
    assert_eq!(
        std::io::Error::last_os_error().raw_os_error(),
        Some(libc::EIO)
    );
    true
}

/// Kills the process at any `open` or `openat` made by the calling thread from now on.
/// Returns `false` (with no filter installed) where the kernel refuses seccomp filters.
pub fn forbid_open_on_this_thread() -> bool {
    filter_on_this_thread(
        &[libc::SYS_openat, libc::SYS_open],
        libc::SECCOMP_RET_KILL_PROCESS,
    )
    .is_ok()
}
