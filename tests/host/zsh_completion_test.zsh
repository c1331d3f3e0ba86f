#!/usr/bin/env zsh
# Real zsh completion: an interactive zsh in a pseudo-terminal loads `fieldflow completion zsh`
# through compinit, the test types a line and TAB, and checks the words offered (recorded by a
# wrapper around compadd, zsh's one way to offer a match). Each step waits for a marker the shell
# prints, never a fixed time.
# usage: zsh_completion_test.zsh FIELDFLOW WORKDIR
emulate -R zsh
zmodload zsh/zpty || exit 1
ff=${1:a} work=$2
rm -rf $work && mkdir -p $work/functions || exit 1
$ff completion zsh > $work/functions/_fieldflow || { print -u2 "fieldflow completion zsh failed"; exit 1 }
offered=$work/offered

print -r -- "
PS1='' PS2='' RPS1=''
unsetopt auto_list list_beep beep
bindkey -e
fpath=(${(q)work}/functions \$fpath)
autoload -Uz compinit && compinit -u -D
# TAB completes, then prints the marker the test waits for.
ff-complete() { zle complete-word; print -n '@@com''pleted@@' }
zle -N ff-complete
bindkey '^I' ff-complete
# Every match offered, whatever adds it, is written to the file (calls that only ask, -O/-A/-D, are not).
compadd() {
    if [[ \${@[1,(i)(-|--)]} != *-(O|A|D)\\ * ]]; then
        local -a hits
        builtin compadd -A hits \"\$@\"
        (( \$#hits )) && print -rl -- \$hits >> ${(q)offered}
    fi
    builtin compadd \"\$@\"
}
path=(${(q)ff:h} \$path)
print '@@rea''dy@@'
" > $work/setup.zsh

cd $work
zpty shell 'env -u FIELDFLOW_PLUGIN_PATH zsh -f -i' || exit 1
zpty -w shell "source ${(q)work}/setup.zsh"
zpty -r -m shell reply '*@@ready@@*' || { print -u2 "zsh did not start"; exit 1 }

failures=0
# offers LINE [-x] WORD...: TAB after LINE offers every WORD (-x: exactly these words, in any order).
offers() {
    local line=$1 exact=0; shift
    [[ $1 == -x ]] && { exact=1; shift }
    : > $offered
    zpty -n -w shell $'\C-u'"fieldflow $line"$'\t'
    zpty -r -m shell reply '*@@completed@@*' || { print -u2 "no completion for '$line'"; exit 1 }
    local -a got=(${(f)"$(<$offered)"}) missing
    got=(${(u)got})
    for w in $@; do (( ${got[(Ie)$w]} )) || missing+=($w); done
    if (( $#missing )) || (( exact && $#got != $# )); then
        print -u2 "FAIL: 'fieldflow $line<TAB>' offered (${got[*]}), expected ${${exact:#0}:+exactly }(${*})"
        (( failures++ ))
    else
        print "ok: 'fieldflow $line<TAB>' offers ${*}"
    fi
}

offers 'ca' -x cache
offers 'run --jo' --jobs
offers 'help chec' -x check
offers 'nodes Gaussian' GaussianBlur
offers 'nodes Resize interp' -x interpolation=
offers 'nodes Resize interpolation=cu' -x interpolation=cubic
offers 'run la' lake
offers 'check compare_m' compare_models
offers 'run lake --set inp' -x input=
offers 'do in.jpg Resize sca' scale=
offers 'do in.jpg Resize scale=0.5 Gaus' GaussianBlur
offers 'do in.jpg Resize interpolation=ar' -x interpolation=area

zpty -d shell
(( failures == 0 ))
