use super::*;
use crate::wait::WaitStats;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

fn gate(settings: Settings) -> Arc<Gate> {
    Arc::new(Gate::new(settings))
}

/// Wait (at most 10 s) until `cond` holds.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn never_more_than_n_inside() {
    let g = gate(Settings::fifo(3));
    let inside = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..12)
        .map(|_| {
            let (g, inside, most) = (g.clone(), inside.clone(), most.clone());
            std::thread::spawn(move || {
                for _ in 0..20 {
                    g.acquire();
                    let now = inside.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(now, SeqCst);
                    std::thread::sleep(Duration::from_micros(300));
                    inside.fetch_sub(1, SeqCst);
                    g.release();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(
        most.load(SeqCst),
        3,
        "the limit is reached and never passed"
    );
    assert_eq!(g.active(), 0);
    assert_eq!(g.waiting(), 0);
    let st = g.status();
    let entries = st.iter().find(|(n, _)| n == "Admission_entries").unwrap();
    assert_eq!(entries.1, Value::UInt(240));
}

#[test]
fn fifo_admits_in_arrival_order() {
    let g = gate(Settings::fifo(1));
    g.acquire();
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    for id in 0..8 {
        let (g2, order) = (g.clone(), order.clone());
        threads.push(std::thread::spawn(move || {
            g2.acquire();
            order.lock().push(id);
            g2.release();
        }));
        // Thread `id` is queued before the next one arrives.
        eventually("the thread queued", || g.waiting() == id + 1);
    }
    g.release();
    threads.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(*order.lock(), (0..8).collect::<Vec<_>>());
    let waits = g.stats.waits.load(SeqCst);
    assert_eq!(waits, 8, "every thread waited");
}

#[test]
fn fifo_overload_starves_nobody() {
    // N = 1 and 8 threads re-entering as fast as they can: every thread gets all its entries,
    // and all of them had to queue (the gate really was overloaded). The order within the
    // queue is checked by `fifo_admits_in_arrival_order`; here the OS decides when a thread
    // that just left comes back, so only completion is a property of the gate.
    let g = gate(Settings::fifo(1));
    let counts: Vec<_> = (0..8)
        .map(|_| {
            let g = g.clone();
            std::thread::spawn(move || {
                let mut n = 0;
                for _ in 0..300 {
                    g.acquire();
                    n += 1;
                    std::thread::yield_now();
                    g.release();
                }
                n
            })
        })
        .collect();
    for t in counts {
        assert_eq!(t.join().unwrap(), 300);
    }
    assert_eq!(g.stats.entries.load(SeqCst), 2400);
    assert!(g.stats.waits.load(SeqCst) > 0, "the gate was overloaded");
    assert_eq!(g.active(), 0);
    assert_eq!(g.waiting(), 0);
}

#[test]
fn a_queued_waiter_gets_the_freed_slot_before_a_newcomer() {
    let g = gate(Settings::fifo(1));
    g.acquire();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (g2, log2) = (g.clone(), log.clone());
    let t = std::thread::spawn(move || {
        g2.acquire();
        log2.lock().push("waiter");
        std::thread::sleep(Duration::from_millis(10));
        g2.release();
    });
    eventually("the waiter queued", || g.waiting() == 1);
    g.release();
    g.acquire(); // a newcomer at the very moment the slot frees
    log.lock().push("newcomer");
    g.release();
    t.join().unwrap();
    assert_eq!(*log.lock(), vec!["waiter", "newcomer"]);
}

#[test]
fn adaptive_sleep_lets_a_newcomer_overtake_a_sleeper() {
    // The contrast with FIFO: a sleeping waiter is not owed the slot.
    let (asleep, is_asleep) = mpsc::channel::<()>();
    let (wake, woken) = mpsc::channel::<()>();
    let (asleep, woken) = (Mutex::new(asleep), Mutex::new(woken));
    let sleeper: Sleeper = Box::new(move |_| {
        asleep.lock().send(()).unwrap();
        woken.lock().recv().unwrap();
    });
    let settings = Settings {
        discipline: Discipline::AdaptiveSleep,
        ..Settings::fifo(1)
    };
    let g = Arc::new(Gate::with_sleeper(settings, sleeper));
    g.acquire();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (g2, log2) = (g.clone(), log.clone());
    let t = std::thread::spawn(move || {
        g2.acquire();
        log2.lock().push("sleeper");
        g2.release();
    });
    is_asleep.recv().unwrap();
    g.release();
    g.acquire();
    log.lock().push("newcomer");
    g.release();
    wake.send(()).unwrap();
    t.join().unwrap();
    assert_eq!(*log.lock(), vec!["newcomer", "sleeper"]);
}

#[test]
fn raising_the_limit_or_switching_off_lets_waiters_in() {
    let g = gate(Settings::fifo(1));
    g.acquire();
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let g = g.clone();
            std::thread::spawn(move || {
                g.acquire();
                g.release();
            })
        })
        .collect();
    eventually("three queued", || g.waiting() == 3);
    g.configure(&Settings::fifo(2));
    eventually("one let in", || g.waiting() <= 2);
    g.configure(&Settings::fifo(0));
    threads.into_iter().for_each(|t| t.join().unwrap());
    g.release();
    assert_eq!(g.active(), 0);
}

#[test]
fn adaptive_delay_rules() {
    let d = AdaptiveDelay {
        current_us: AtomicU64::new(0),
        max_us: AtomicU64::new(0),
    };
    d.reset(10, 150);
    d.after_sleep(1);
    assert_eq!(d.current(), 10, "one round is not too short");
    d.after_sleep(2);
    assert_eq!(d.current(), 11, "a second round adds 1");
    d.on_admitted(1, 2);
    assert_eq!(d.current(), 10, "exactly one sleep takes 1 off");
    d.on_admitted(0, 1);
    assert_eq!(d.current(), 10, "others still sleep: unchanged");
    d.on_admitted(0, 0);
    assert_eq!(d.current(), 5, "a free slot with nobody asleep halves it");
    d.reset(200, 150);
    assert_eq!(d.next_sleep(), 150, "capped");
    assert_eq!(d.current(), 150);
    d.after_sleep(5);
    assert_eq!(d.current(), 151, "the cap applies at the next sleep");
    assert_eq!(d.next_sleep(), 150);
    d.reset(10, 0);
    d.after_sleep(3);
    d.on_admitted(0, 0);
    assert_eq!(d.current(), 10, "max 0: no adaptation");
}

#[test]
fn adaptive_sleep_gate_sleeps_and_adapts() {
    // A sleeper that records each delay and, on the third, waits until the slot is free.
    let slept = Arc::new(Mutex::new(Vec::new()));
    let (at_third, third_seen) = mpsc::channel::<()>();
    let (freed, wait_freed) = mpsc::channel::<()>();
    let wait_freed = Mutex::new(wait_freed);
    let at_third = Mutex::new(at_third);
    let s2 = slept.clone();
    let sleeper: Sleeper = Box::new(move |d: Duration| {
        let n = {
            let mut v = s2.lock();
            v.push(d.as_micros() as u64);
            v.len()
        };
        if n == 3 {
            at_third.lock().send(()).unwrap();
            wait_freed.lock().recv().unwrap();
        }
    });
    let settings = Settings {
        discipline: Discipline::AdaptiveSleep,
        sleep_delay_us: 10,
        max_sleep_delay_us: 150,
        ..Settings::fifo(1)
    };
    let g = Arc::new(Gate::with_sleeper(settings, sleeper));
    g.acquire();
    assert_eq!(
        g.sleep_delay_us(),
        5,
        "entering with nobody asleep halved 10"
    );
    let stats = Arc::new(WaitStats::new());
    let (g2, st2) = (g.clone(), stats.clone());
    let t = std::thread::spawn(move || {
        let _bind = wait::bind_thread_stats(Some(st2));
        g2.acquire();
        g2.release();
    });
    third_seen.recv().unwrap();
    assert_eq!(g.waiting(), 1);
    g.release();
    freed.send(()).unwrap();
    t.join().unwrap();
    // Sleeps of 5, 5, then 6 (+1 after the second round); +1 after the third → 7; admitted
    // with nobody else asleep → halved to 3.
    assert_eq!(*slept.lock(), vec![5, 5, 6]);
    assert_eq!(g.sleep_delay_us(), 3);
    assert_eq!(g.stats.waits.load(SeqCst), 1);
    let admission = stats
        .summary()
        .into_iter()
        .find(|r| r.event_name == WaitEvent::Admission.name())
        .unwrap();
    assert_eq!(admission.count_star, 1, "one wait through the wait API");
}

#[test]
fn tickets_run_out_and_the_session_requeues_behind_waiters() {
    let g = gate(Settings {
        tickets: 3,
        ..Settings::fifo(1)
    });
    let admitted = enter(&g).expect("gate is on");
    for _ in 0..3 {
        spend_ticket();
    }
    assert_eq!(
        g.stats.requeues.load(SeqCst),
        0,
        "three tickets: no requeue"
    );
    // Someone queues; our fourth row operation hands them the slot and queues behind them.
    let log = Arc::new(Mutex::new(Vec::new()));
    let (g2, log2) = (g.clone(), log.clone());
    let t = std::thread::spawn(move || {
        g2.acquire();
        log2.lock().push("other");
        std::thread::sleep(Duration::from_millis(20));
        g2.release();
    });
    eventually("the other session queued", || g.waiting() == 1);
    spend_ticket();
    log.lock().push("me again");
    assert_eq!(*log.lock(), vec!["other", "me again"]);
    assert_eq!(g.stats.requeues.load(SeqCst), 1);
    assert_eq!(g.active(), 1);
    drop(admitted);
    assert_eq!(g.active(), 0);
    t.join().unwrap();
}

#[test]
fn a_lock_wait_gives_the_slot_back_and_reenters_without_queueing() {
    let g = gate(Settings::fifo(1));
    let admitted = enter(&g).expect("gate is on");
    assert_eq!(g.active(), 1);
    let w = wait::begin(WaitEvent::RowLock);
    assert_eq!(g.active(), 0, "slot given back during the lock wait");
    // Another session gets in meanwhile and stays.
    let other_in = Arc::new(AtomicBool::new(false));
    let (g2, in2) = (g.clone(), other_in.clone());
    let (done, wait_done) = mpsc::channel::<()>();
    let t = std::thread::spawn(move || {
        let a = enter(&g2).unwrap();
        in2.store(true, SeqCst);
        wait_done.recv().unwrap();
        drop(a);
    });
    eventually("the other session entered", || other_in.load(SeqCst));
    drop(w);
    assert_eq!(g.active(), 2, "re-entered at once, above the limit");
    spend_ticket();
    done.send(()).unwrap();
    t.join().unwrap();
    assert_eq!(g.active(), 1);
    drop(admitted);
    assert_eq!(g.active(), 0);
    assert_eq!(g.stats.wait_exits.load(SeqCst), 1);
}

#[test]
fn waits_that_are_engine_work_keep_the_slot() {
    let g = gate(Settings::fifo(1));
    let _admitted = enter(&g).unwrap();
    let w = wait::begin(WaitEvent::Admission);
    assert_eq!(g.active(), 1);
    drop(w);
    assert!(enter(&g).is_none(), "already inside: no second slot");
    assert_eq!(g.active(), 1);
}

#[test]
fn gate_off_counts_nothing() {
    let g = gate(Settings::fifo(0));
    assert!(enter(&g).is_none());
    spend_ticket();
    drop(wait::begin(WaitEvent::RowLock));
    assert_eq!(g.active(), 0);
    assert_eq!(g.stats.entries.load(SeqCst), 0);
}
