;;; treereduce.el --- reduce the region or buffer with treereduce-py  -*- lexical-binding: t -*-

;; M-x treereduce-buffer RET rustc --crate-type lib @@.rs RET
;;     replaces the buffer with the reduced program (undo with C-/); with C-u first, the result
;;     goes to the buffer *treereduce* instead and yours is left alone.
;; M-x treereduce-region   the same for the region.
;;
;; Without `--' in what you type, it is the test command and --same-crash is used (no script);
;; with `--', what comes before it are treereduce-py options, e.g.
;;     --exit-code 1 --stderr-regex KeyError -- python3 @@
;; The text goes to treereduce-py on stdin and the result comes back on stdout. Emacs waits
;; until it is done (C-g stops it); the JSON progress events are kept in *treereduce-log*.
;; The language is the major mode's (`treereduce-languages' maps the modes whose name differs);
;; in `fundamental-mode' it is the file's extension, else treereduce-py reads the first line.
;; Load it from your init file: (load "/path/to/treereduce.el").

(require 'json)
(require 'seq)
(require 'subr-x)

(defvar treereduce-program "treereduce-py"
  "The treereduce-py executable.")

(defvar treereduce-languages
  '((c++-mode . "cpp") (c++-ts-mode . "cpp") (js-mode . "javascript") (js-ts-mode . "javascript")
    (js2-mode . "javascript") (js2-jsx-mode . "javascript") (js-jsx-mode . "javascript")
    (rjsx-mode . "javascript") (typescript-tsx-mode . "tsx") (sh-mode . "bash")
    (emacs-lisp-mode . "elisp") (lisp-interaction-mode . "elisp") (csharp-mode . "csharp")
    (rustic-mode . "rust") (tuareg-mode . "ocaml") (caml-mode . "ocaml") (cperl-mode . "perl")
    (enh-ruby-mode . "ruby") (makefile-gmake-mode . "make") (makefile-bsdmake-mode . "make")
    (makefile-automake-mode . "make") (makefile-makepp-mode . "make")
    (makefile-imake-mode . "make"))
  "Major modes whose tree-sitter language is not the mode's name without -mode/-ts-mode.")

(defvar treereduce-history nil)

(defun treereduce--language ()
  "The language name for the current major mode, or nil to let treereduce-py guess."
  (cond ((alist-get major-mode treereduce-languages))
        ((eq major-mode 'fundamental-mode)
         (let ((extension (and buffer-file-name (file-name-extension buffer-file-name))))
           (and extension (not (string-empty-p extension)) extension)))
        (t (replace-regexp-in-string "\\(-ts\\)?-mode\\'" "" (symbol-name major-mode)))))

(defun treereduce--arguments (language test)
  "Command-line arguments for reducing stdin to stdout in LANGUAGE (nil: treereduce-py
guesses) with TEST (a string)."
  ;; Quoted as a shell quotes ('a b', "a b", a\ b); Emacs 27 knows only "a b".
  (let ((words (if (fboundp 'split-string-shell-command)
                   (split-string-shell-command test)
                 (split-string-and-unquote test))))
    (append (list "-") (and language (list "-l" language)) (list "-o" "-" "--json")
            (if (member "--" words) words (cons "--same-crash" (cons "--" words))))))

(defun treereduce--coding ()
  "How the text goes to treereduce-py and comes back: as the file is saved, else UTF-8."
  (let ((coding buffer-file-coding-system))
    (if (and coding (not (eq (coding-system-base coding) 'undecided))) coding 'utf-8)))

(defun treereduce--read-test ()
  (read-shell-command "Test command (@@ = the candidate): " nil 'treereduce-history))

(defun treereduce-region (start end test &optional other-buffer)
  "Reduce the text between START and END while TEST stays interesting.
Replace it with the result, or show the result in *treereduce* when OTHER-BUFFER (the
prefix argument) is non-nil. Signals an error, keeping the text, when the reduction fails."
  (interactive (list (region-beginning) (region-end) (treereduce--read-test) current-prefix-arg))
  (unless (executable-find treereduce-program)
    (user-error "treereduce: cannot run %s: not found on PATH (install it, or set `treereduce-program')"
                treereduce-program))
  (let* ((language (treereduce--language))
         (coding (treereduce--coding))
         ;; A region that ends a line is replaced by text that ends one: not glued to the next.
         (ends-line (and (< start end) (eq (char-before end) ?\n)))
         (stderr (make-temp-file "treereduce-stderr"))
         (out (generate-new-buffer " *treereduce-out*"))
         (source (current-buffer))
         (log ""))
    (unwind-protect
        (let ((status (let ((coding-system-for-write coding) (coding-system-for-read coding))
                        (apply #'call-process-region start end treereduce-program nil
                               (list out stderr) nil (treereduce--arguments language test)))))
          (with-current-buffer (get-buffer-create "*treereduce-log*")
            (goto-char (point-max))
            (insert-file-contents stderr)
            (goto-char (point-max)))
          (setq log (with-temp-buffer (insert-file-contents stderr) (buffer-string)))
          (unless (eq status 0)
            (error "treereduce-py failed (%s): %s" status (treereduce--first-error log)))
          (with-current-buffer out
            (when (and ends-line (> (buffer-size) 0) (not (eq (char-before (point-max)) ?\n)))
              (goto-char (point-max))
              (insert "\n")))
          (if other-buffer
              (with-current-buffer (get-buffer-create "*treereduce*")
                (erase-buffer)
                (insert-buffer-substring out)
                (funcall (buffer-local-value 'major-mode source))
                (display-buffer (current-buffer)))
            (save-excursion
              (goto-char start)
              (delete-region start end)
              (insert-buffer-substring out)))
          ;; Sizes in bytes as treereduce-py counted them (the text as saved), not characters.
          ;; Check the signature: a test that fails the same way on any input reduces to nothing.
          (let ((stats (alist-get 'stats (treereduce--event "done" log)))
                (signature (alist-get 'signature (treereduce--event "start" log))))
            (message "treereduce: %s -> %s bytes%s" (alist-get 'original_size stats)
                     (alist-get 'size stats)
                     (if (stringp signature) (concat "; kept " signature) ""))))
      (kill-buffer out)
      (delete-file stderr))))

(defun treereduce--events (text)
  "The JSON events in TEXT (treereduce-py's stderr), as alists, in order."
  (delq nil (mapcar (lambda (line) (ignore-errors (json-read-from-string line)))
                    (split-string text "\n" t))))

(defun treereduce--event (kind text)
  "The first event of KIND (a string such as \"start\") in TEXT, or nil."
  (seq-find (lambda (event) (equal (alist-get 'event event) kind)) (treereduce--events text)))

(defun treereduce--first-error (text)
  "The error message in TEXT (treereduce-py's stderr): its `error' event, else its last line."
  (let ((failure (treereduce--event "error" text)))
    (if failure
        (string-join (cons (alist-get 'message failure)
                           (append (alist-get 'details failure) nil))
                     "\n")
      (or (car (last (split-string text "\n" t))) "no output"))))

(defun treereduce-buffer (test &optional other-buffer)
  "Reduce the whole buffer while TEST stays interesting; see `treereduce-region'."
  (interactive (list (treereduce--read-test) current-prefix-arg))
  (treereduce-region (point-min) (point-max) test other-buffer))

(provide 'treereduce)
;;; treereduce.el ends here
